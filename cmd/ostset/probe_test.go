package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"
)

// ostset probe answers a replica's healthcheck: exit 0 when the port
// answers, 1 when it does not, 2 for a kind it does not know; it reads no
// settings file and needs no state directory (it runs inside the replica).
func TestProbeCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := ln.Addr().String()
	t.Setenv("OSTSET_CONFIG", "/nonexistent/config.yaml")
	t.Setenv("OSTSET_STATE_DIR", "/nonexistent/state")
	run := func(args ...string) (int, string) {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), args, &stdout, &stderr)
		if err == nil {
			return exitOK, ""
		}
		return exitCode(err), err.Error()
	}
	if code, msg := run("probe", "tcp", open); code != exitOK {
		t.Errorf("open port: exit %d: %s", code, msg)
	}
	_ = ln.Close()
	if code, _ := run("probe", "tcp", open); code != exitFailure {
		t.Errorf("closed port: exit %d, want 1", code)
	}
	if code, msg := run("probe", "http", "http://"+open+"/"); code != exitFailure || !strings.Contains(msg, "http probe") {
		t.Errorf("closed HTTP port: exit %d (%s), want 1", code, msg)
	}
	if code, msg := run("probe", "udp", open); code != exitInvalid || !strings.Contains(msg, "tcp or http") {
		t.Errorf("unknown kind: exit %d (%s), want 2", code, msg)
	}
}

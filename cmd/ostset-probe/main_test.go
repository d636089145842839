package main

import (
	"net"
	"testing"
)

// The probe takes the healthcheck's arguments: 0 when the port answers, 1
// when it does not, 2 for arguments it does not know.
func TestRun(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	open := ln.Addr().String()
	_ = ln.Close()
	if code := run([]string{"probe", "tcp", open, "--timeout", "2s"}); code != 1 {
		t.Errorf("a closed port: exit %d, want 1", code)
	}
	ln, err = net.Listen("tcp", open)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	defer func() { _ = ln.Close() }()
	if code := run([]string{"probe", "tcp", open, "--timeout=2s"}); code != 0 {
		t.Errorf("an open port: exit %d, want 0", code)
	}
	for _, args := range [][]string{{"probe", "udp", open}, {"probe", "tcp"}, {"probe", "tcp", open, "--timeout", "soon"}} {
		if code := run(args); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

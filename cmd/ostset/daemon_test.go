package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// --pprof serves on --metrics-addr: without it, the daemon refuses to start
// (exit 2) rather than run with profiling silently off.
func TestDaemonPprofNeedsMetricsAddr(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), []string{"daemon", "--pprof", "--state-dir", t.TempDir()}, &stdout, &stderr)
	if code := exitCode(err); code != exitInvalid {
		t.Fatalf("daemon --pprof without --metrics-addr: exit %d (%v), want %d", code, err, exitInvalid)
	}
	if !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("error %q does not name --metrics-addr", err)
	}
}

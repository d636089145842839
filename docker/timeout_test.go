package docker

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

// An engine that accepts connections and never answers does not hold a call
// (and so a set's lock) past the call timeout.
func TestCallsTimeOutOnAHungEngine(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "hung.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer func() { _ = c.Close() }() // held open, never answered
		}
	}()
	cli, err := client.New(client.WithHost("unix://" + sock))
	if err != nil {
		t.Fatal(err)
	}
	r := &Runtime{cli: cli, callTimeout: 200 * time.Millisecond}
	for name, call := range map[string]func(context.Context) error{
		"Observe": func(ctx context.Context) error {
			_, err := r.Observe(ctx, "web", engine.ObserveOptions{})
			return err
		},
		"CreateReplica": func(ctx context.Context) error {
			_, err := r.CreateReplica(ctx, plan.ReplicaSpec{Set: "web", Name: "web-0", Image: "sha256:x", Network: "n"})
			return err
		},
		"RemoveReplica": func(ctx context.Context) error { return r.RemoveReplica(ctx, "web", "id", time.Millisecond) },
		"EnsureNetwork": func(ctx context.Context) error {
			_, err := r.EnsureNetwork(ctx, "n", nil)
			return err
		},
	} {
		start := time.Now()
		err := call(context.Background())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s on a hung engine: %v, want a deadline error", name, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s took %s on a hung engine", name, took)
		}
	}
}

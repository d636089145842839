// Package hookexec runs a replica's lifecycle hooks (config.Hook) in its
// container through the engine's exec API, as docker compose runs post_start
// and pre_stop: with the hook's user, privileges, working directory and
// environment, its output kept for the error of a hook that fails.
package hookexec

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/config"
)

// API is the part of the engine's client a hook needs.
type API interface {
	ExecCreate(ctx context.Context, container string, options client.ExecCreateOptions) (client.ExecCreateResult, error)
	ExecAttach(ctx context.Context, execID string, options client.ExecAttachOptions) (client.ExecAttachResult, error)
	ExecInspect(ctx context.Context, execID string, options client.ExecInspectOptions) (client.ExecInspectResult, error)
}

// tailLines is how much of a failing hook's output its error keeps.
const tailLines = 10

// Run runs the hooks in order in the container id (called name), stopping at
// the first that fails: an exit other than 0 is an error that names the hook
// (kind, "post_start" or "pre_stop", and its index) and ends with the last
// lines of its output. The context bounds them all.
func Run(ctx context.Context, api API, id, name, kind string, hooks []config.Hook) error {
	for i, h := range hooks {
		if err := run(ctx, api, id, h); err != nil {
			return fmt.Errorf("%s: %s hook %d (%s): %w", name, kind, i, strings.Join(h.Command, " "), err)
		}
	}
	return nil
}

func run(ctx context.Context, api API, id string, h config.Hook) error {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(h.Env)) {
		env = append(env, k+"="+h.Env[k])
	}
	created, err := api.ExecCreate(ctx, id, client.ExecCreateOptions{
		User: h.User, Privileged: h.Privileged, Env: env, WorkingDir: h.WorkingDir, Cmd: h.Command,
		AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return err
	}
	att, err := api.ExecAttach(ctx, created.ID, client.ExecAttachOptions{})
	if err != nil {
		return err
	}
	var out bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := stdcopy.StdCopy(&out, &out, att.Reader)
		done <- err
	}()
	select {
	case err = <-done:
	case <-ctx.Done():
		att.Close() // ends the copy
		if err := <-done; err != nil && ctx.Err() == nil {
			return err
		}
		return ctx.Err()
	}
	att.Close()
	if err != nil {
		return err
	}
	res, err := api.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
	if err != nil {
		return err
	}
	if res.ExitCode != 0 {
		return fmt.Errorf("exited with status %d%s", res.ExitCode, tail(out.String()))
	}
	return nil
}

// tail is ": " and the last lines of output, "" without any.
func tail(output string) string {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
		return ": " + s
	}
	return ""
}

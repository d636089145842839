package docker

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// ExecOptions is a command to run in a replica, as docker exec runs it.
type ExecOptions struct {
	Cmd []string
	// Stdin, when not nil, is copied to the command's standard input (-i).
	Stdin io.Reader
	// Stdout and Stderr receive its output; with TTY both streams arrive on Stdout.
	Stdout, Stderr io.Writer
	// TTY gives the command a terminal (-t) of Height × Width.
	TTY           bool
	Height, Width uint
	// Resized, when not nil, sends the new size each time the local terminal
	// changes size.
	Resized <-chan [2]uint
}

// Exec runs a command in a container of the set and returns its exit code.
func (r *Runtime) Exec(ctx context.Context, set, id string, o ExecOptions) (int, error) {
	c, err := r.ownContainer(ctx, "exec in", set, id)
	if err != nil {
		return 0, err
	}
	name := containerName(c, id)
	size := client.ConsoleSize{}
	if o.TTY {
		size = client.ConsoleSize{Height: o.Height, Width: o.Width}
	}
	created, err := r.cli.ExecCreate(ctx, c.ID, client.ExecCreateOptions{
		Cmd: o.Cmd, TTY: o.TTY, ConsoleSize: size,
		AttachStdin: o.Stdin != nil, AttachStdout: true, AttachStderr: true,
	})
	if err != nil {
		return 0, fmt.Errorf("exec in %s: %w", name, err)
	}
	att, err := r.cli.ExecAttach(ctx, created.ID, client.ExecAttachOptions{TTY: o.TTY, ConsoleSize: size})
	if err != nil {
		return 0, fmt.Errorf("exec in %s: %w", name, err)
	}
	defer att.Close()
	if o.Stdin != nil {
		go func() {
			_, _ = io.Copy(att.Conn, o.Stdin)
			_ = closeWrite(att.Conn) // EOF on the command's stdin, as docker exec -i does
		}()
	}
	if o.Resized != nil {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case hw, ok := <-o.Resized:
					if !ok {
						return
					}
					_, _ = r.cli.ExecResize(ctx, created.ID, client.ExecResizeOptions{Height: hw[0], Width: hw[1]})
				}
			}
		}()
	}
	done := make(chan error, 1)
	go func() {
		if o.TTY {
			_, err := io.Copy(o.Stdout, att.Reader)
			done <- err
			return
		}
		_, err := stdcopy.StdCopy(o.Stdout, o.Stderr, att.Reader)
		done <- err
	}()
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case err := <-done:
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("exec in %s: %w", name, err)
		}
	}
	res, err := r.cli.ExecInspect(ctx, created.ID, client.ExecInspectOptions{})
	if err != nil {
		return 0, fmt.Errorf("exec in %s: %w", name, err)
	}
	return res.ExitCode, nil
}

func closeWrite(c io.Closer) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

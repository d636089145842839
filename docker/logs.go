package docker

import (
	"context"
	"fmt"
	"io"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"
)

// Logs returns the container's stdout and stderr as one plain stream (the engine's
// multiplexed framing removed). tail is a line count or "" / "all"; with follow
// the stream stays open until the container stops, ctx ends or it is closed.
func (r *Runtime) Logs(ctx context.Context, set, id string, follow bool, tail string) (io.ReadCloser, error) {
	c, err := r.ownContainer(ctx, "read logs of", set, id)
	if err != nil {
		return nil, err
	}
	name := containerName(c, id)
	body, err := r.cli.ContainerLogs(ctx, c.ID, client.ContainerLogsOptions{
		ShowStdout: true, ShowStderr: true, Follow: follow, Tail: tail,
	})
	if err != nil {
		return nil, fmt.Errorf("logs of container %s: %w", name, err)
	}
	if c.Config != nil && c.Config.Tty {
		return body, nil // a TTY's output is not multiplexed
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := stdcopy.StdCopy(pw, pw, body)
		_ = body.Close()
		if err != nil {
			err = fmt.Errorf("logs of container %s: %w", name, err)
		}
		pw.CloseWithError(err)
	}()
	return &logStream{PipeReader: pr, body: body}, nil
}

// logStream closes both ends, so Close ends the copy goroutine at once.
type logStream struct {
	*io.PipeReader
	body io.Closer
}

func (l *logStream) Close() error {
	_ = l.body.Close()
	return l.PipeReader.Close()
}

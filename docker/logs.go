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
	return r.logStream(ctx, c.ID, containerName(c, id), c.Config != nil && c.Config.Tty, follow, tail, "")
}

// LogsSince is Logs from the lines written since a time on: an RFC 3339
// timestamp, a Unix time, or a duration back from now ("10m"), as docker logs
// --since takes it.
func (r *Runtime) LogsSince(ctx context.Context, set, id string, follow bool, tail, since string) (io.ReadCloser, error) {
	c, err := r.ownContainer(ctx, "read logs of", set, id)
	if err != nil {
		return nil, err
	}
	return r.logStream(ctx, c.ID, containerName(c, id), c.Config != nil && c.Config.Tty, follow, tail, since)
}

// logStream is the one reader of a container's logs (Logs, LogTail and the
// last lines of a replica that is not ready): stdout and stderr as one plain
// stream, the engine's multiplexed framing removed unless the container has a
// TTY, whose output is not multiplexed.
func (r *Runtime) logStream(ctx context.Context, id, name string, tty, follow bool, tail, since string) (io.ReadCloser, error) {
	body, err := r.cli.ContainerLogs(ctx, id, client.ContainerLogsOptions{
		ShowStdout: true, ShowStderr: true, Follow: follow, Tail: tail, Since: since,
	})
	if err != nil {
		return nil, fmt.Errorf("logs of container %s: %w", name, err)
	}
	if tty {
		return body, nil
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
	return &demuxed{PipeReader: pr, body: body}, nil
}

// demuxed closes both ends, so Close ends the copy goroutine at once.
type demuxed struct {
	*io.PipeReader
	body io.Closer
}

func (l *demuxed) Close() error {
	_ = l.body.Close()
	return l.PipeReader.Close()
}

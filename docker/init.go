package docker

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

// toInit maps an init container of the set (io.ostset.init). Its ordinal comes
// from the label, else from its name, else it is -1, as for a replica.
func toInit(set, name string, c container.Summary) plan.InitContainer {
	ord, ok := ordinalLabel(c.Labels)
	if !ok {
		if ord, _, ok = plan.ParseInitName(set, name); !ok {
			ord = -1
		}
	}
	return plan.InitContainer{
		ID:       c.ID,
		Name:     name,
		Ordinal:  ord,
		Init:     c.Labels[plan.LabelInit],
		Revision: c.Labels[plan.LabelRevision],
		State:    string(c.State),
		ExitCode: exitCode(c),
		Created:  time.Unix(c.Created, 0),
		Owner:    plan.OwnerOf(c.Labels),
	}
}

// refreshInits inspects the init containers the list shows running. Measured on
// 20.10: the list can still say "running" after the container's die event has
// been sent, so a pass woken by that event would see no change and the next step
// would wait for the safety poll; inspect has the exit already. A container gone
// meanwhile is dropped.
func (r *Runtime) refreshInits(ctx context.Context, inits []plan.InitContainer) ([]plan.InitContainer, error) {
	out := inits[:0]
	for _, c := range inits {
		if c.State != string(container.StateRunning) {
			out = append(out, c)
			continue
		}
		res, err := r.cli.ContainerInspect(ctx, c.ID, client.ContainerInspectOptions{})
		if cerrdefs.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("inspect container %s: %w", c.Name, err)
		}
		if st := res.Container.State; st != nil {
			c.State, c.ExitCode = string(st.Status), st.ExitCode
		}
		out = append(out, c)
	}
	return out, nil
}

// foreign: a container without the set's label that holds a name the set needs.
func foreign(set, name string) bool {
	if _, ok := plan.ParseReplicaName(set, name); ok {
		return true
	}
	_, _, ok := plan.ParseInitName(set, name)
	return ok
}

var exitedRe = regexp.MustCompile(`^Exited \((-?\d+)\)`)

// exitCode reads an exited container's exit code from its list entry's status,
// "Exited (1) 3 seconds ago" (ContainerList has no field for it); -1 if the
// status does not say, which counts as a failure.
func exitCode(c container.Summary) int {
	if c.State != container.StateExited {
		return 0
	}
	if m := exitedRe.FindStringSubmatch(c.Status); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	return -1
}

// maxLogLine bounds one line of LogTail; the rest of a longer line is dropped.
const maxLogLine = 4096

// LogTail returns the last n lines of a container's output, stdout and stderr
// interleaved as written, without the engine's framing.
func (r *Runtime) LogTail(ctx context.Context, set, id string, n int) ([]string, error) {
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	rc, err := r.Logs(ctx, set, id, false, strconv.Itoa(n))
	if err != nil {
		return nil, err
	}
	defer func() { _ = rc.Close() }()
	var lines []string
	br := bufio.NewReader(rc)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			lines = append(lines, truncateLine(line))
		}
		for errors.Is(err, bufio.ErrBufferFull) { // a long line: skip its rest
			_, err = br.ReadSlice('\n')
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("logs of container %s: %w", id, err)
		}
	}
	return lines[max(0, len(lines)-n):], nil
}

func truncateLine(b []byte) string {
	s := strings.TrimRight(string(b), "\r\n")
	if len(s) > maxLogLine {
		s = strings.ToValidUTF8(s[:maxLogLine], "")
	}
	return s
}

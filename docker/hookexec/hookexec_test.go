package hookexec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/config"
)

// fakeAPI answers each exec with the output and exit code of its command's
// first word, and records what it was asked.
type fakeAPI struct {
	exits   map[string]int
	outputs map[string]string
	created []client.ExecCreateOptions
}

func (f *fakeAPI) ExecCreate(_ context.Context, _ string, o client.ExecCreateOptions) (client.ExecCreateResult, error) {
	f.created = append(f.created, o)
	return client.ExecCreateResult{ID: o.Cmd[0]}, nil
}

func (f *fakeAPI) ExecAttach(_ context.Context, id string, _ client.ExecAttachOptions) (client.ExecAttachResult, error) {
	var b bytes.Buffer
	for _, line := range strings.SplitAfter(f.outputs[id], "\n") {
		if line == "" {
			continue
		}
		hdr := []byte{2, 0, 0, 0, 0, 0, 0, 0} // stderr, as a failing command writes
		binary.BigEndian.PutUint32(hdr[4:], uint32(len(line)))
		b.Write(hdr)
		b.WriteString(line)
	}
	c, _ := net.Pipe()
	return client.ExecAttachResult{HijackedResponse: client.HijackedResponse{Conn: c, Reader: bufio.NewReader(&b)}}, nil
}

func (f *fakeAPI) ExecInspect(_ context.Context, id string, _ client.ExecInspectOptions) (client.ExecInspectResult, error) {
	return client.ExecInspectResult{ExitCode: f.exits[id]}, nil
}

// Hooks run in order, as docker exec runs them (user, privileges, working
// directory, environment sorted), until one exits non-zero: its error names
// it, its status, and ends with its last lines of output.
func TestRun(t *testing.T) {
	var lines []string
	for i := range 15 {
		lines = append(lines, "line "+string(rune('a'+i)))
	}
	f := &fakeAPI{exits: map[string]int{"fail": 3}, outputs: map[string]string{"fail": strings.Join(lines, "\n") + "\n"}}
	hooks := []config.Hook{
		{Command: []string{"ok", "x"}, User: "root", Privileged: true, WorkingDir: "/data", Env: map[string]string{"B": "2", "A": "1"}},
		{Command: []string{"fail"}},
		{Command: []string{"never"}},
	}
	err := Run(context.Background(), f, "id", "web-0", "post_start", hooks)
	want := "web-0: post_start hook 1 (fail): exited with status 3: " + strings.Join(lines[5:], "\n")
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	first := client.ExecCreateOptions{User: "root", Privileged: true, WorkingDir: "/data", Env: []string{"A=1", "B=2"}, Cmd: []string{"ok", "x"}, AttachStdout: true, AttachStderr: true}
	if len(f.created) != 2 || !reflect.DeepEqual(f.created[0], first) {
		t.Errorf("execs %+v, want the first as %+v and no third", f.created, first)
	}
	if err := Run(context.Background(), f, "id", "web-0", "pre_stop", hooks[:1]); err != nil {
		t.Errorf("a hook that exits 0: %v", err)
	}
}

package docker

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/ostset/ostset/engine/plan"
)

// The archive a replica's files are copied with carries each one's mode,
// owner and group, relative to "/", and refuses a path that is not absolute.
func TestFilesArchive(t *testing.T) {
	b, err := filesArchive([]plan.File{
		{Path: "/etc/creds", Dir: true, Mode: 0o755, GID: 2000},
		{Path: "/etc/creds/password", Data: []byte("s3cr3t"), Mode: 0o440, GID: 2000},
		{Path: "/.ostset/ostset", Data: []byte("\x7fELF"), Mode: 0o755},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got = append(got, fmt.Sprintf("%s %c %o %d:%d %q", h.Name, h.Typeflag, h.Mode, h.Uid, h.Gid, data))
	}
	want := []string{`etc/creds/ 5 755 0:2000 ""`, `etc/creds/password 0 440 0:2000 "s3cr3t"`, `.ostset/ostset 0 755 0:0 "\x7fELF"`}
	if !slices.Equal(got, want) {
		t.Errorf("archive\n%q\nwant\n%q", got, want)
	}
	if _, err := filesArchive([]plan.File{{Path: "etc/x"}}); err == nil {
		t.Errorf("a relative path was archived")
	}
}

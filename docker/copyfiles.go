package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

// copyFiles gives a created container the files of its spec (ConfigMap and
// Secret volumes, ostset's probe) through the engine's API, as one tar
// archive extracted at "/": every entry carries its mode, owner and group,
// which the engine keeps (copyUIDGID unset). A directory the archive does
// not hold (a parent of a volume's mount path) the engine makes 0755, root.
// It works the same on an engine whose files are not this host's (Docker
// Desktop's VM, a remote host).
func (r *Runtime) copyFiles(ctx context.Context, id string, spec plan.ReplicaSpec) error {
	if len(spec.Files) == 0 {
		return nil
	}
	archive, err := filesArchive(spec.Files)
	if err != nil {
		return fmt.Errorf("%s: %w", spec.Name, err)
	}
	_, err = r.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: bytes.NewReader(archive)})
	if err != nil {
		return fmt.Errorf("%s: copy its files into the container: %w", spec.Name, err)
	}
	return nil
}

// filesArchive is the tar archive of files, relative to "/".
func filesArchive(files []plan.File) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	// A fixed time: the archive of one spec is the same at every create.
	mtime := time.Unix(0, 0)
	for _, f := range files {
		name := strings.TrimPrefix(path.Clean(f.Path), "/")
		if !path.IsAbs(f.Path) || name == "" || strings.HasPrefix(name, "../") {
			return nil, fmt.Errorf("%q is not an absolute path in the container", f.Path)
		}
		h := &tar.Header{Name: name, Mode: int64(f.Mode & 0o7777), Uid: f.UID, Gid: f.GID, ModTime: mtime, Format: tar.FormatPAX}
		if f.Dir {
			h.Typeflag, h.Name = tar.TypeDir, name+"/"
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(f.Data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// engineArch remembers each engine's architecture.
var engineArch sync.Map // *Runtime → string

// EngineArch is the architecture of the engine's host, as Go names it
// (amd64, arm64): the probe ostset copies into a replica is built for it.
func (r *Runtime) EngineArch(ctx context.Context) (string, error) {
	if v, ok := engineArch.Load(r); ok {
		return v.(string), nil
	}
	ctx, cancel := r.bound(ctx, 0)
	defer cancel()
	v, err := r.cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return "", fmt.Errorf("the engine's architecture: %w", err)
	}
	if v.Os != "" && v.Os != "linux" {
		return "", fmt.Errorf("the engine runs %s containers; ostset runs Linux containers", v.Os)
	}
	engineArch.Store(r, v.Arch)
	return v.Arch, nil
}

// EngineIsLocal reports whether the engine runs on this host, reached
// through a unix socket: only then does a path here name what the engine
// sees, and can a bind source be checked before a create.
func (r *Runtime) EngineIsLocal() bool { return r.local() }

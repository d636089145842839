package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
)

// ownVolumes gives the spec's volumes that ask for it (VolumeSpec.RootOwner)
// their owner, in the container id, created and not started yet. A volume is
// given its owner when it is new: created by this call (fresh), or still
// empty, since a replica that failed before it wrote anything (or whose
// creation failed after the volume's) has not been set up yet, and Docker
// copies the image's directory ownership onto an empty volume again at each
// container create. A volume that holds anything is never touched.
//
// The owner is set through the engine's archive API, not by a process in a
// helper container: an archive holding only the mount point's directory entry,
// with the owner and the directory's own mode, is extracted over it, and the
// engine applies that entry's owner to the directory. So it works on any image
// (distroless, FROM scratch, without chown or a shell, with a non-root
// USER), and it has to happen here, after the container's create: a helper
// container made before it would be undone by that copy of the image's
// ownership.
func (r *Runtime) ownVolumes(ctx context.Context, id string, spec plan.ReplicaSpec, fresh map[string]bool) error {
	for _, v := range spec.Volumes {
		if v.RootOwner == nil {
			continue
		}
		if err := r.ownVolume(ctx, id, v, fresh[v.Name]); err != nil {
			return fmt.Errorf("volume %s: owner %d:%d: %w", v.Name, v.RootOwner.UID, v.RootOwner.GID, err)
		}
	}
	return nil
}

func (r *Runtime) ownVolume(ctx context.Context, id string, v plan.VolumeSpec, fresh bool) error {
	if v.MountPath == "" || path.Clean(v.MountPath) == "/" {
		return fmt.Errorf("mount path %q", v.MountPath)
	}
	root, empty, err := r.directory(ctx, id, v.MountPath)
	if err != nil {
		return err
	}
	o := v.RootOwner
	if !fresh && !empty || root.Uid == o.UID && root.Gid == o.GID {
		return nil
	}
	entry := tar.Header{Typeflag: tar.TypeDir, Name: path.Base(v.MountPath) + "/", Mode: root.Mode & 0o7777,
		Uid: o.UID, Gid: o.GID, ModTime: root.ModTime}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	if err := tw.WriteHeader(&entry); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	_, err = r.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: path.Dir(path.Clean(v.MountPath)), Content: &buf})
	return err
}

// directory returns the archive header of the directory at dir in the
// container (its owner, mode and time) and whether it is empty. It reads only
// the first two entries of the archive the engine streams.
func (r *Runtime) directory(ctx context.Context, id, dir string) (*tar.Header, bool, error) {
	res, err := r.cli.CopyFromContainer(ctx, id, client.CopyFromContainerOptions{SourcePath: dir})
	if err != nil {
		return nil, false, err
	}
	defer func() { _ = res.Content.Close() }()
	tr := tar.NewReader(res.Content)
	root, err := tr.Next()
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", dir, err)
	}
	if root.Typeflag != tar.TypeDir {
		return nil, false, fmt.Errorf("%s is not a directory", dir)
	}
	_, err = tr.Next()
	if errors.Is(err, io.EOF) {
		return root, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", dir, err)
	}
	return root, false, nil
}

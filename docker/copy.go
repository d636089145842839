package docker

import (
	"context"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/go-archive"
	"github.com/moby/moby/client"
)

// CopyFrom copies src, a file or directory in the set's container id, to dst
// on this machine, as docker cp CONTAINER:SRC DST does (dst an existing
// directory: into it; else: as dst).
func (r *Runtime) CopyFrom(ctx context.Context, set, id, src, dst string) error {
	c, err := r.ownContainer(ctx, "copy from", set, id)
	if err != nil {
		return err
	}
	res, err := r.cli.CopyFromContainer(ctx, c.ID, client.CopyFromContainerOptions{SourcePath: src})
	if err != nil {
		return fmt.Errorf("copy %s from %s: %w", src, containerName(c, id), err)
	}
	defer func() { _ = res.Content.Close() }()
	info := archive.CopyInfo{Path: src, Exists: true, IsDir: res.Stat.Mode.IsDir()}
	if err := archive.CopyTo(res.Content, info, dst); err != nil {
		return fmt.Errorf("copy %s from %s to %s: %w", src, containerName(c, id), dst, err)
	}
	return nil
}

// CopyTo copies src, a file or directory on this machine, to dst in the set's
// container id, as docker cp SRC CONTAINER:DST does.
func (r *Runtime) CopyTo(ctx context.Context, set, id, src, dst string) error {
	c, err := r.ownContainer(ctx, "copy to", set, id)
	if err != nil {
		return err
	}
	srcInfo, err := archive.CopyInfoSourcePath(src, true)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	content, err := archive.TarResource(srcInfo)
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	defer func() { _ = content.Close() }()
	dstInfo := archive.CopyInfo{Path: dst}
	switch st, err := r.cli.ContainerStatPath(ctx, c.ID, client.ContainerStatPathOptions{Path: dst}); {
	case err == nil:
		dstInfo.Exists, dstInfo.IsDir = true, st.Stat.Mode.IsDir()
	case !cerrdefs.IsNotFound(err):
		return fmt.Errorf("copy to %s:%s: %w", containerName(c, id), dst, err)
	}
	dir, prepared, err := archive.PrepareArchiveCopy(content, srcInfo, dstInfo)
	if err != nil {
		return fmt.Errorf("copy %s to %s:%s: %w", src, containerName(c, id), dst, err)
	}
	defer func() { _ = prepared.Close() }()
	if _, err := r.cli.CopyToContainer(ctx, c.ID, client.CopyToContainerOptions{DestinationPath: dir, Content: prepared}); err != nil {
		return fmt.Errorf("copy %s to %s:%s: %w", src, containerName(c, id), dst, err)
	}
	return nil
}

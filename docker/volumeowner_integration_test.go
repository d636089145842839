//go:build integration

package docker

import (
	"archive/tar"
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/volumes"
)

// ownedSpec is a replica of image running as 1000:1000 with a per-ordinal
// volume at /data that asks for that owner.
func ownedSpec(set, image string) (plan.ReplicaSpec, string) {
	spec := replicaSpec(set, 0)
	spec.Image = image
	spec.User = "1000:1000"
	vol := volumeFor(&spec)
	spec.Volumes[0].MountPath = "/data"
	spec.Volumes[0].RootOwner = &volumes.FileOwner{UID: 1000, GID: 1000}
	return spec, vol
}

// rootOf reads the owner of /data in the container, and whether it is empty.
func rootOf(t *testing.T, ctx context.Context, id string) (uid, gid int, empty bool) {
	t.Helper()
	h, empty, err := rt.directory(ctx, id, "/data")
	if err != nil {
		t.Fatal(err)
	}
	return h.Uid, h.Gid, empty
}

// putEntry extracts one tar entry (a directory, or a file with content) owned
// by uid:gid into the container at dir, as an operator's docker cp would.
func putEntry(t *testing.T, ctx context.Context, id, dir string, h tar.Header, content string) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	h.Size = int64(len(content))
	h.ModTime = time.Now()
	if err := tw.WriteHeader(&h); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte(content)); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.cli.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: dir, Content: &buf}); err != nil {
		t.Fatal(err)
	}
}

func recreate(t *testing.T, ctx context.Context, spec plan.ReplicaSpec, id string) string {
	t.Helper()
	if err := rt.RemoveReplica(ctx, spec.Set, id, time.Second); err != nil {
		t.Fatal(err)
	}
	res, err := rt.CreateReplica(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	return res.ID
}

// A new volume gets its owner; an empty one gets it again (Docker's copy of
// the image's ownership, or a failed first try, may have undone it); one with
// data is never touched.
func TestVolumeOwner(t *testing.T) {
	for _, c := range []struct{ name, image string }{
		{"mount point not in the image", imageID},
		// Docker copies the image's /data ownership (root) onto an empty volume at
		// every create: the owner must be set after that.
		{"mount point in the image", imageWithData(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := testCtx(t)
			spec, vol := ownedSpec(newSet(t), c.image)
			res, err := rt.CreateReplica(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			if uid, gid, empty := rootOf(t, ctx, res.ID); uid != 1000 || gid != 1000 || !empty {
				t.Fatalf("new volume %s: owner %d:%d (empty %v), want 1000:1000", vol, uid, gid, empty)
			}

			// Still empty, handed back to root: owned again by the next create.
			putEntry(t, ctx, res.ID, "/", tar.Header{Typeflag: tar.TypeDir, Name: "data/", Mode: 0o755}, "")
			id := recreate(t, ctx, spec, res.ID)
			if uid, gid, _ := rootOf(t, ctx, id); uid != 1000 || gid != 1000 {
				t.Errorf("empty reused volume: owner %d:%d, want 1000:1000", uid, gid)
			}

			// With data, and given to another owner on purpose: left alone.
			putEntry(t, ctx, id, "/data", tar.Header{Typeflag: tar.TypeReg, Name: "PG_VERSION", Mode: 0o600, Uid: 1000, Gid: 1000}, "16\n")
			putEntry(t, ctx, id, "/", tar.Header{Typeflag: tar.TypeDir, Name: "data/", Mode: 0o700, Uid: 2000, Gid: 2000}, "")
			id = recreate(t, ctx, spec, id)
			h, empty, err := rt.directory(ctx, id, "/data")
			if err != nil {
				t.Fatal(err)
			}
			if h.Uid != 2000 || h.Gid != 2000 || h.Mode&0o777 != 0o700 || empty {
				t.Errorf("volume with data: owner %d:%d mode %o (empty %v), want 2000:2000 0700 untouched", h.Uid, h.Gid, h.Mode&0o777, empty)
			}
		})
	}
}

var (
	dataImageOnce sync.Once
	dataImage     string
	dataImageErr  error
)

// imageWithData builds, once, the test image with a root-owned /data directory.
func imageWithData(t *testing.T) string {
	t.Helper()
	dataImageOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		const tag = "ostset-dockertest/app:1-data"
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		dockerfile := "FROM " + testImage + "\nCOPY data /data\n"
		for _, h := range []tar.Header{
			{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))},
			{Name: "data/", Typeflag: tar.TypeDir, Mode: 0o755},
		} {
			if dataImageErr = tw.WriteHeader(&h); dataImageErr != nil {
				return
			}
			if h.Size > 0 {
				_, _ = tw.Write([]byte(dockerfile))
			}
		}
		if dataImageErr = tw.Close(); dataImageErr != nil {
			return
		}
		res, err := rt.cli.ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{tag}, Remove: true})
		if err != nil {
			dataImageErr = err
			return
		}
		defer func() { _ = res.Body.Close() }()
		if dataImageErr = buildErrors(res.Body); dataImageErr == nil {
			dataImage, dataImageErr = rt.EnsureImage(ctx, tag, "Never", nil)
		}
	})
	if dataImageErr != nil {
		t.Fatalf("build the image with /data: %v", dataImageErr)
	}
	return dataImage
}

package engine

import (
	"context"
	"fmt"
	"path"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// A replica gets the files ostset gives it (the files of its ConfigMap and
// Secret volumes, ostset's probe) copied into its container through the
// engine's API at each create, before it starts: nothing is bind-mounted from
// this host, so it works the same where the engine's files are not this
// host's (Docker Desktop's VM, a remote engine). Neither the files' place on
// this host nor the probe's bytes are part of the revision.

// giveFiles turns the spec's ConfigMap and Secret volumes into files and
// adds the probe when its healthcheck runs it.
func (c *Controller) giveFiles(ctx context.Context, spec *plan.ReplicaSpec) error {
	if err := c.configVolumes(spec); err != nil {
		return err
	}
	return c.copyProbe(ctx, spec)
}

// configVolumes replaces each mount of a ConfigMap or Secret volume (a
// directory of the state directory's manifest-volumes) with its files, as
// the last up recorded them: the mount path becomes a directory (0755,
// root, with the files' group) holding each file with its mode (defaultMode
// or the item's mode, 0644 by default) and group (the pod's fsGroup). Any
// other bind mount is the user's and stays.
func (c *Controller) configVolumes(spec *plan.ReplicaSpec) error {
	var mounts []plan.Mount
	for _, m := range spec.Mounts {
		if m.Type != "bind" {
			mounts = append(mounts, m)
			continue
		}
		files, ok, err := c.Store.ConfigVolume(m.Source)
		if err != nil {
			return fmt.Errorf("%s: the volume at %s: %w", spec.Name, m.Target, err)
		}
		if !ok {
			mounts = append(mounts, m)
			continue
		}
		spec.Files = append(spec.Files, volumeFiles(m.Target, files)...)
	}
	spec.Mounts = mounts
	return nil
}

// volumeFiles lays files out under target: the directories first.
func volumeFiles(target string, files []state.ConfigVolumeFile) []plan.File {
	gid := 0
	if len(files) > 0 {
		gid = files[0].GID
	}
	out := []plan.File{{Path: target, Dir: true, Mode: 0o755, GID: gid}}
	seen := map[string]bool{target: true}
	var regular []plan.File
	for _, f := range files {
		p := path.Join(target, f.Name)
		var dirs []plan.File
		for d := path.Dir(p); !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append([]plan.File{{Path: d, Dir: true, Mode: 0o755, GID: f.GID}}, dirs...)
		}
		out = append(out, dirs...)
		regular = append(regular, plan.File{Path: p, Data: f.Data, Mode: f.Mode, UID: f.UID, GID: f.GID})
	}
	return append(out, regular...)
}

// copyProbe gives a replica whose healthcheck runs ostset's probe
// (config.ProbePath: a Kubernetes tcpSocket or httpGet readinessProbe) the
// probe program, a static Linux binary for the engine's architecture.
func (c *Controller) copyProbe(ctx context.Context, spec *plan.ReplicaSpec) error {
	if !spec.NeedsProbe() {
		return nil
	}
	if c.Probe == nil {
		return fmt.Errorf("%s: the healthcheck runs ostset's probe (%s), and this process has no probe program to give it", spec.Name, config.ProbePath)
	}
	bin, err := c.Probe(ctx)
	if err != nil {
		return fmt.Errorf("%s: the healthcheck runs ostset's probe (%s): %w", spec.Name, config.ProbePath, err)
	}
	spec.Files = append(spec.Files, plan.File{Path: config.ProbePath, Data: bin, Mode: 0o755})
	return nil
}

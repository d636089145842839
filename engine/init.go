package engine

// Init containers (template.initContainers) on Docker.
//
// Init container <n> of replica web-1 is the container web-1-init-<n>: the set's
// labels, io.ostset.init=<n>, the revision, ordinal and owner labels. It has the
// replica's hostname, OSTSET_* environment and per-ordinal volumes, and joins the
// set's network, but without the replica's DNS aliases: while it runs there is no
// replica to answer, and peers must not find a process that does not serve yet
// (Kubernetes too publishes a pod's DNS records only once it is ready). It has no
// healthcheck and Docker never restarts it; ostset runs it again, with back-off,
// when it fails. Once the replica's container exists they are removed: an
// exited-0 init container is how a later pass, maybe of another process, knows it
// succeeded. The rules are in initplan.go.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/volumes"
)

// initLogLines is how many of a failed init container's last lines status shows.
const initLogLines = 5

// InitContainerName is the container name of init container init of an ordinal.
func InitContainerName(set string, ordinal int, init string) string {
	return ReplicaName(set, ordinal) + "-init-" + init
}

// ParseInitName returns the ordinal and init container name of name if it is
// <set>-<ordinal>-init-<init>. An init name of digits only is none (the set file
// refuses them): web-1-init-0 is replica 0 of a set named web-1-init.
func ParseInitName(set, name string) (int, string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(name, "/"), set+"-")
	if !ok {
		return 0, "", false
	}
	ord, init, ok := strings.Cut(rest, "-init-")
	if !ok || strings.Trim(init, "0123456789") == "" {
		return 0, "", false
	}
	n, ok := ParseReplicaName(set, set+"-"+ord)
	if !ok {
		return 0, "", false
	}
	return n, init, true
}

// initNames lists, per revision of st, its init containers' names in order: the
// planner's view of the templates (Input.InitContainers).
func initNames(st State) map[string][]string {
	out := map[string][]string{}
	for _, r := range st.Revisions {
		if names := r.Spec.Template.InitNames(); len(names) > 0 {
			out[r.Name] = names
		}
	}
	return out
}

// InitStatus is the init phase of an ordinal whose replica container does not
// exist yet: how far its init containers got, at the revision it is created at.
type InitStatus struct {
	Replica   string `json:"replica"`
	Ordinal   int    `json:"ordinal"`
	Revision  string `json:"revision"`
	Succeeded int    `json:"succeeded"` // init containers that ran to completion
	Total     int    `json:"total"`
	// Init is the init container that runs, failed or runs next; Container and
	// ID name its container once it exists.
	Init      string `json:"init,omitempty"`
	Container string `json:"container,omitempty"`
	ID        string `json:"id,omitempty"`
	// State is InitPending, InitRunning, InitFailed or InitSucceeded.
	State    string `json:"state"`
	ExitCode int    `json:"exitCode,omitempty"`
	// Logs are the last lines of a failed init container's output.
	Logs []string `json:"logs,omitempty"`
	// Created is when the ordinal's first init container was created.
	Created time.Time `json:"created"`
}

// InitStatus states.
const (
	InitPending   = "pending"   // the next init container is not created yet
	InitRunning   = "running"   // it runs (or is created, restarting, paused)
	InitFailed    = "failed"    // it exited with a code other than 0
	InitSucceeded = "succeeded" // all succeeded; the replica container is next
)

// initDone and initFailed read an init container's outcome: exited 0, or exited
// otherwise (a dead container failed too).
func initDone(c InitContainer) bool {
	return c.State == StateExited && c.ExitCode == 0
}

func initFailed(c InitContainer) bool {
	return (c.State == StateExited && c.ExitCode != 0) || c.State == StateDead
}

// RenderInit turns init container init of a revision into the container that
// runs it for one ordinal.
func RenderInit(set config.Set, rev Revision, ordinal int, init string) (ReplicaSpec, error) {
	spec := rev.Spec
	i := slices.IndexFunc(spec.Template.InitContainers, func(c config.InitContainer) bool { return c.Name == init })
	name := InitContainerName(set.Name, ordinal, init)
	if i < 0 {
		return ReplicaSpec{}, fmt.Errorf("%s: revision %s has no init container %s", name, rev.Name, init)
	}
	replica := ReplicaName(set.Name, ordinal)
	c, err := config.ExpandInit(spec.Template.InitContainers[i], fmt.Sprintf("template.initContainers[%d]", i),
		set.ReplicaVars(spec.ServiceName, ordinal))
	if err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: %w", name, err)
	}
	image := spec.InitImageIDs[init]
	if image == "" {
		image = c.Image
	}
	labels := replicaLabels(spec.Template.Labels, set.Name, ordinal, rev.Name)
	labels[LabelInit] = init
	r := ReplicaSpec{
		Set:         set.Name,
		Name:        name,
		Hostname:    replica,
		Ordinal:     ordinal,
		Revision:    rev.Name,
		Image:       image,
		Entrypoint:  c.Command,
		Cmd:         c.Args,
		Env:         replicaEnv(c.Env, set.Name, ordinal, replica, spec.ServiceName),
		WorkingDir:  c.WorkingDir,
		User:        c.User,
		Labels:      labels,
		Network:     spec.Network,
		Healthcheck: &Healthcheck{Test: []string{"NONE"}}, // the image's would only report on a container that exits
		Mounts:      userMounts(c.VolumeMounts),
		Restart:     "no", // a failure is ostset's to retry, with back-off
		StopTimeout: set.GracePeriod(),
	}
	for _, n := range spec.NetworkNames()[1:] { // on all the replica's networks, with no DNS names
		r.OtherNetworks = append(r.OtherNetworks, NetworkJoin{Name: n})
	}
	for _, claim := range spec.VolumeClaimTemplates {
		vol := volumes.Name(claim.Name, set.Name, ordinal)
		r.Volumes = append(r.Volumes, VolumeSpec{Name: vol, Driver: claim.Driver, DriverOpts: claim.DriverOpts, Labels: map[string]string{
			LabelSet: set.Name, LabelOrdinal: strconv.Itoa(ordinal), LabelClaim: claim.Name,
		}})
		r.Mounts = append(r.Mounts, Mount{Type: "volume", Source: vol, Target: claim.MountPath})
	}
	if r.NanoCPUs, err = parseOptional(c.Resources.CPUs, config.ParseCPUs); err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: resources.cpus: %w", name, err)
	}
	if r.MemoryBytes, err = parseOptional(c.Resources.Memory, config.ParseMemory); err != nil {
		return ReplicaSpec{}, fmt.Errorf("%s: resources.memory: %w", name, err)
	}
	return r, nil
}

// createInit runs an ActCreateInit. The first init container of an ordinal is
// what creates its volumes, so it says, as a replica would, when it reuses one
// from an earlier life of the ordinal; the volumes are then handed over to the
// replica being created, which has nothing to say about them.
func (c *Controller) createInit(ctx context.Context, st *State, mu *sync.Mutex, a Action) error {
	set := st.Spec.Name
	rev, ok := st.Revision(a.Revision)
	if !ok {
		return fmt.Errorf("%s: revision %s is not in the history", a.Name, a.Revision)
	}
	spec, err := RenderInit(st.Spec, rev, a.Ordinal, a.Init)
	if err == nil {
		err = c.labelOwner(&spec)
	}
	if err != nil {
		return err
	}
	res, err := c.Runtime.CreateReplica(ctx, spec)
	if err != nil {
		return err
	}
	replica := ReplicaName(set, a.Ordinal)
	c.emit(set, replica, "%s created (revision %s)", a.Name, a.Revision)
	mu.Lock()
	defer mu.Unlock()
	for _, v := range res.ReusedVolumes {
		if msg := staleVolume(replica, v, st.VolumeUse[v.Name]); msg != "" {
			c.emit(set, replica, "%s", msg)
		}
	}
	st.useVolumes(spec.Volumes, a.Revision, c.now())
	return nil
}

// initLogs remembers the last lines of failed init containers, per set and
// container ID: an exited container's output does not change, so each is read
// once.
type initLogs struct {
	mu   sync.Mutex
	sets map[string]map[string][]string
}

// fill sets Logs on the failed init containers of obs, reading the output of
// those not seen before, and forgets containers that are gone. Output that
// cannot be read is left out: it only adds to a report.
func (l *initLogs) fill(ctx context.Context, rt Runtime, set string, obs *Observed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string][]string{}
	for i, c := range obs.Inits {
		if !initFailed(c) {
			continue
		}
		lines, ok := l.sets[set][c.ID]
		if !ok {
			var err error
			if lines, err = rt.LogTail(ctx, set, c.ID, initLogLines); err != nil {
				continue
			}
		}
		seen[c.ID] = lines
		obs.Inits[i].Logs = lines
	}
	if l.sets == nil {
		l.sets = map[string]map[string][]string{}
	}
	l.sets[set] = seen
}

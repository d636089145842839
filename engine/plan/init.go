package plan

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
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/volumes"
)

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

// Failed reports whether the init container failed: it exited with a code
// other than 0, or is dead.
func (c InitContainer) Failed() bool { return initFailed(c) }

func initFailed(c InitContainer) bool {
	return (c.State == StateExited && c.ExitCode != 0) || c.State == StateDead
}

// RenderInit turns init container init of a revision (its name and spec) into the container that
// runs it for one ordinal.
func RenderInit(set config.Set, revision string, spec config.RevisionSpec, ordinal int, init string) (ReplicaSpec, error) {
	i := slices.IndexFunc(spec.Template.InitContainers, func(c config.InitContainer) bool { return c.Name == init })
	name := InitContainerName(set.Name, ordinal, init)
	if i < 0 {
		return ReplicaSpec{}, fmt.Errorf("%s: revision %s has no init container %s", name, revision, init)
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
	labels := replicaLabels(spec.Template.Labels, set.Name, ordinal, revision)
	labels[LabelInit] = init
	r := ReplicaSpec{
		Set:         set.Name,
		Name:        name,
		Hostname:    replica,
		Ordinal:     ordinal,
		Revision:    revision,
		Image:       image,
		Entrypoint:  c.Command,
		Cmd:         c.Args,
		Env:         replicaEnv(c.Env, set.Name, ordinal, replica, spec.ServiceName),
		EnvRefs:     c.EnvRefs,
		WorkingDir:  c.WorkingDir,
		User:        c.User,
		Labels:      labels,
		Network:     spec.Network,
		Healthcheck: &Healthcheck{Test: []string{"NONE"}}, // the image's would only report on a container that exits
		Mounts:      userMounts(c.VolumeMounts),
		Restart:     "no", // a failure is ostset's to retry, with back-off
		StopTimeout: set.GracePeriod(),
	}
	_, r.Domainname = clusterNames(set, spec, replica) // a pod's init containers share its hostname
	for _, n := range spec.NetworkNames()[1:] {        // on all the replica's networks, with no DNS names
		r.OtherNetworks = append(r.OtherNetworks, NetworkJoin{Name: n, IPAM: NetworkCreateLabels(nil, spec.Networks, n)[LabelIPAM]})
	}
	r.IPAM = NetworkCreateLabels(nil, spec.Networks, r.Network)[LabelIPAM] // no fixed address: the replica's
	if NetworkMode(r.Network) {
		r.Domainname = ""
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

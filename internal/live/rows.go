package live

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

// SetRow is one set as ostset get lists it (and its JSON object).
type SetRow struct {
	plan.Status
	Created time.Time `json:"created"`
	// Image is the image reference of the update revision, as written.
	Image string `json:"image,omitempty"`
	// Deleted marks, in get -o json -w, a set that was deleted.
	Deleted bool `json:"deleted,omitempty"`
}

// NewSetRow is the row of a set with status s and state st.
func NewSetRow(s plan.Status, st state.State) SetRow {
	return SetRow{Status: s, Created: st.Created, Image: st.Spec.Template.Image}
}

// SetHeader and SetCells are the columns of the sets table; output is "" or "wide".
func SetHeader(output string) []string {
	if output == "wide" {
		return []string{"NAME", "READY", "AGE", "CURRENT", "UPDATED", "CURRENT REVISION", "UPDATE REVISION", "IMAGE"}
	}
	return []string{"NAME", "READY", "AGE"}
}

// SetCells: see SetHeader.
func SetCells(r SetRow, output string, now time.Time) []string {
	ready := fmt.Sprintf("%d/%d", r.ReadyReplicas, r.Replicas)
	if r.Deleting != nil {
		ready += " (deleting)"
	}
	if r.Paused {
		ready += " (paused)"
	}
	if r.Stopped {
		ready += " (stopped)"
	}
	cells := []string{r.Name, ready, present.Age(r.Created, now)}
	if output == "wide" {
		cells = append(cells, strconv.Itoa(r.CurrentReplicas), strconv.Itoa(r.UpdatedReplicas),
			orDefault(r.CurrentRevision, "-"), orDefault(r.UpdateRevision, "-"), orDefault(r.Image, "-"))
	}
	return cells
}

// ReplicaRow is one line of a set's replicas: a replica container, an
// ordinal whose init containers run, or a desired ordinal without either.
type ReplicaRow struct {
	Name, Ready, State, Health, Revision, ID, Reason string
	Ports, Image                                     string
	// Restarts counts the container's restarts in place (kubectl's RESTARTS).
	Restarts string
	Ordinal  int
	Created  time.Time
}

// ReplicaHeader and ReplicaCells are the columns of a set's replicas; output
// is "" or "wide".
func ReplicaHeader(output string) []string {
	if output == "wide" {
		return []string{"NAME", "ORDINAL", "READY", "STATE", "HEALTH", "RESTARTS", "REVISION", "IMAGE", "PORTS", "AGE", "CONTAINER ID", "REASON"}
	}
	return []string{"NAME", "READY", "STATE", "HEALTH", "RESTARTS", "AGE"}
}

// ReplicaCells: see ReplicaHeader.
func ReplicaCells(r ReplicaRow, output string, now time.Time) []string {
	if output == "wide" {
		return []string{r.Name, strconv.Itoa(r.Ordinal), r.Ready, r.State, r.Health, orDefault(r.Restarts, "-"), r.Revision, r.Image, r.Ports, r.Age(now), r.ID, r.Reason}
	}
	return []string{r.Name, r.Ready, r.State, r.Health, orDefault(r.Restarts, "-"), r.Age(now)}
}

// Age is the row's age; "-" for an ordinal without a container.
func (r ReplicaRow) Age(now time.Time) string {
	if r.Created.IsZero() && r.ID == "-" {
		return "-"
	}
	return present.Age(r.Created, now)
}

// Restarts is how often a replica's container was restarted in place: by
// ostset for a failed liveness or startup probe, and by Docker's restart
// policy (known while the replica is not ready).
func Restarts(c plan.ContainerStatus) int {
	n := c.Restarts
	if c.NotReady != nil {
		n += c.NotReady.Restarts
	}
	return n
}

// ReplicaRows lists every desired ordinal and every replica, by ordinal, with
// the image and host ports of the revision each runs (or would run). A
// replica whose recreation the crash-loop back-off holds back is in state
// CrashLoopBackOff, as Kubernetes calls it, with the next try (from now) in
// its reason.
func ReplicaRows(s plan.Status, st state.State, now time.Time) []ReplicaRow {
	var rows []ReplicaRow
	for _, c := range s.Containers {
		ready := "0/1"
		if c.Ready {
			ready = "1/1"
		}
		state, reason := c.State, orDefault(c.Reason, "-")
		if c.RemovalPending != nil {
			state += " (removal pending)"
		}
		if c.Stopped { // kept stopped by ostset stop, as compose ps says exited
			state = "Stopped"
		}
		if c.CrashLoop != nil {
			state = "CrashLoopBackOff"
			reason = strings.TrimPrefix(c.Reason+"; ", "; ") + present.CrashLoopNote(c.CrashLoop, now)
		}
		rows = append(rows, ReplicaRow{Name: c.Name, Ordinal: c.Ordinal, Ready: ready, State: state,
			Health: healthText(c), Revision: c.Revision, Created: c.Created, ID: c.ID, Reason: reason, Restarts: strconv.Itoa(Restarts(c))})
	}
	for _, i := range s.Initializing {
		rows = append(rows, ReplicaRow{Name: i.Replica, Ordinal: i.Ordinal, Ready: "0/1", State: initState(i),
			Health: "-", Revision: i.Revision, Created: i.Created, ID: orDefault(i.ID, "-"), Reason: initReason(i)})
	}
	for _, p := range s.Pending { // as kubectl lists a Pending pod
		state := "pending"
		if p.Failed {
			state = "failed"
		}
		rows = append(rows, ReplicaRow{Name: p.Name, Ordinal: p.Ordinal, Ready: "0/1", State: state,
			Health: "-", Revision: "-", ID: "-", Reason: p.Reason})
	}
	slices.SortStableFunc(rows, func(a, b ReplicaRow) int { return a.Ordinal - b.Ordinal })
	for i := range rows {
		t := revisionTemplate(st, rows[i].Revision)
		rows[i].Image = orDefault(t.Image, "-")
		rows[i].Ports = orDefault(hostPorts(t.Ports, rows[i].Ordinal), "-")
	}
	return rows
}

// ReplicaObjects are the JSON objects of get SET -o json (-w: one a line), in
// the order of ReplicaRows: each replica's status, and for an ordinal without a replica
// container (init containers running, pending, failed) the same fields.
func ReplicaObjects(s plan.Status) []plan.ContainerStatus {
	out := slices.Clone(s.Containers)
	for _, i := range s.Initializing {
		out = append(out, plan.ContainerStatus{Name: i.Replica, Ordinal: i.Ordinal, Revision: i.Revision,
			State: initState(i), ID: i.ID, Created: i.Created, Reason: strings.TrimPrefix(initReason(i), "-")})
	}
	for _, p := range s.Pending {
		state := "pending"
		if p.Failed {
			state = "failed"
		}
		out = append(out, plan.ContainerStatus{Name: p.Name, Ordinal: p.Ordinal, State: state, Reason: p.Reason})
	}
	slices.SortStableFunc(out, func(a, b plan.ContainerStatus) int { return a.Ordinal - b.Ordinal })
	return out
}

// initState is the STATE of an ordinal whose init containers run, as kubectl
// shows a pod's: Init:1/2 while they run, Init:ExitCode:N when one failed.
func initState(s plan.InitStatus) string {
	if s.State == plan.InitFailed {
		return fmt.Sprintf("Init:ExitCode:%d", s.ExitCode)
	}
	return fmt.Sprintf("Init:%d/%d", s.Succeeded, s.Total)
}

// initReason is the REASON column of an initializing ordinal: which init
// container failed, and how.
func initReason(s plan.InitStatus) string {
	if s.State == plan.InitFailed {
		return fmt.Sprintf("init %s: exit %d", s.Init, s.ExitCode)
	}
	return "-"
}

// revisionTemplate is the template of the named revision, or of the spec
// when the revision is not in the history (a replica not created yet).
func revisionTemplate(st state.State, revision string) config.Template {
	for _, r := range st.Revisions {
		if r.Name == revision {
			return r.Spec.Template
		}
	}
	return st.Spec.Template
}

// hostPorts renders the ports ordinal publishes as docker ps does:
// "16380->6379/tcp", the host port being hostPort + ordinal. A port without
// a hostPort gets one Docker picks, shown as "->6379/tcp".
func hostPorts(ports []config.Port, ordinal int) string {
	var out []string
	for _, p := range ports {
		proto := p.Protocol
		if proto == "" {
			proto = "tcp"
		}
		host := ""
		if p.HostPort != 0 {
			host = fmt.Sprint(p.HostPort + ordinal)
		}
		if p.HostIP != "" {
			host = p.HostIP + ":" + host
		}
		out = append(out, fmt.Sprintf("%s->%d/%s", host, p.ContainerPort, proto))
	}
	return strings.Join(out, ",")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// healthText is a replica's health for a table: the engine's status, and
// where readiness came from when it is not that status ("starting (probe
// passed)": ostset's own run of the healthcheck passed before the engine's).
func healthText(c plan.ContainerStatus) string {
	if c.ReadyBy == plan.ReadyByProbe {
		return orDefault(c.Health, "-") + " (probe passed)"
	}
	return orDefault(c.Health, "-")
}

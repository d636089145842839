package oracle

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

const setName = "web"

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// spec is a StatefulSet spec both controllers are given; version is the
// template's (a change of template is a new version).
type spec struct {
	replicas, start int
	parallel        bool
	onDelete        bool
	partition       int
	maxUnavailable  string // "1", "2", "50%"
	minReady        int
	scaledDelete    bool
	// deletedDelete: whenDeleted: Delete (fixed for a history: Kubernetes
	// sets a claim's owner by it only as it creates or updates the pod).
	deletedDelete bool
	// recreate: updateStrategy Recreate (only when ostset has it, see
	// recreateSupported).
	recreate     bool
	historyLimit int
	version      int
}

// rolling: RollingUpdate, where the partition and maxUnavailable apply.
func (sp spec) rolling() bool { return !sp.onDelete && !sp.recreate }

func (sp spec) String() string {
	s := fmt.Sprintf("replicas=%d start=%d", sp.replicas, sp.start)
	if sp.parallel {
		s += " Parallel"
	} else {
		s += " OrderedReady"
	}
	if sp.onDelete {
		s += " OnDelete"
	} else if sp.recreate {
		s += " Recreate"
	} else {
		s += fmt.Sprintf(" RollingUpdate(partition=%d maxUnavailable=%s)", sp.partition, sp.maxUnavailable)
	}
	s += fmt.Sprintf(" minReadySeconds=%d", sp.minReady)
	if sp.scaledDelete {
		s += " whenScaled=Delete"
	}
	if sp.deletedDelete {
		s += " whenDeleted=Delete"
	}
	return s + fmt.Sprintf(" revisionHistoryLimit=%d template=v%d", sp.historyLimit, sp.version)
}

// ostsetSet is sp as ostset's set.
func (sp spec) ostsetSet() config.Set {
	s := config.Set{Name: setName, Replicas: new(sp.replicas), Template: config.Template{Image: imageOf(sp.version)}}
	s.PodManagementPolicy = config.OrderedReady
	if sp.parallel {
		s.PodManagementPolicy = config.Parallel
	}
	s.UpdateStrategy.Type = config.RollingUpdate
	if sp.onDelete {
		s.UpdateStrategy.Type = config.OnDelete
	}
	if sp.recreate {
		s.UpdateStrategy.Type = recreateType
	}
	s.UpdateStrategy.RollingUpdate.Partition = sp.partition
	s.UpdateStrategy.RollingUpdate.MaxUnavailable = config.IntOrPercent(sp.maxUnavailable)
	s.Ordinals.Start = sp.start
	s.MinReadySeconds = sp.minReady
	s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Retain
	if sp.scaledDelete {
		s.PersistentVolumeClaimRetentionPolicy.WhenScaled = config.Delete
	}
	s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = config.Retain
	if sp.deletedDelete {
		s.PersistentVolumeClaimRetentionPolicy.WhenDeleted = config.Delete
	}
	s.RevisionHistoryLimit = new(sp.historyLimit)
	s.ApplyDefaults()
	return s
}

// recreateType is updateStrategy.type Recreate. recreateSupported: ostset's
// set file takes it (ostset has the strategy); until then histories draw no
// Recreate, and Kubernetes' (alpha in 1.37, gate StatefulSetRecreateStrategy)
// is left out.
const recreateType = "Recreate"

var recreateSupported = func() bool {
	s := spec{replicas: 1, maxUnavailable: "1", version: 1}.ostsetSet()
	s.UpdateStrategy.Type = recreateType
	return s.Validate() == nil
}()

// revisionName is the name ostset gives the revision of a template version
// (engine/state's history, compared with Kubernetes' ControllerRevisions).
func revisionName(version int) string {
	if n, ok := revisionNames.Load(version); ok {
		return n.(string)
	}
	s := spec{replicas: 1, maxUnavailable: "1", version: version}.ostsetSet()
	n := config.RevisionName(setName, s.RevisionSpec("sha256:"+imageOf(version)).Hash())
	revisionNames.Store(version, n)
	return n
}

// revisionNames caches revisionName: a hash each replica of each pass.
var revisionNames sync.Map

// record makes the template the update revision of ostset's history, as
// ostset up does, and notes which version each revision name holds.
func (w *world) record() {
	w.hist.Spec = w.sp.ostsetSet()
	w.hist.SetUpdateRevision(w.hist.Spec.RevisionSpec("sha256:"+imageOf(w.sp.version)), "", w.now)
	w.histVersion[w.hist.UpdateRevision] = w.sp.version
}

// kept are the template versions ostset's history holds.
func (w *world) kept() []int {
	var out []int
	for _, r := range w.hist.Revisions {
		out = append(out, w.histVersion[r.Name])
	}
	slices.Sort(out)
	return out
}

// Replica states in the world.
const (
	running     = "running"
	failed      = "failed"      // exited; a pod in phase Failed
	terminating = "terminating" // being removed; a pod with a deletion timestamp
)

// replica is one replica of the world: a container for ostset, a pod for
// Kubernetes.
type replica struct {
	ord        int
	version    int
	state      string
	ready      bool
	readySince time.Time
	created    time.Time
	// sick keeps a running replica from becoming ready (a failing probe).
	sick bool
	// termTicks is how many ticks a terminating replica has left.
	termTicks int
	// pod is the pod Kubernetes' controller created for it (its identity,
	// labels and volumes); its status comes from the fields above.
	pod *v1.Pod
}

// world is the observed state both controllers act on.
type world struct {
	sp       spec
	now      time.Time
	replicas map[int]*replica
	// volumes are ostset's per-ordinal volumes; Kubernetes' claims are in kube.
	volumes map[int]bool
	// current is ostset's current revision, as the engine keeps it.
	current   string
	condemned []int
	kube      *kube
	trace     []string
	// passes counts the passes.
	passes int
	// condemnedUnderDelete are the ordinals whose replica (since created)
	// was outside the range under whenScaled: Delete at some pass.
	condemnedUnderDelete map[int]bool
	// backInRange are those of them whose replica was in the range again at
	// some pass.
	backInRange map[int]bool
	// passDiffs are the status differences of the passes of one settling.
	passDiffs []*divergence
	// broken are the template versions whose replicas never become ready.
	broken map[int]bool
	// hist is ostset's revision history (engine/state) and histVersion the
	// version each of its revisions holds.
	hist        state.State
	histVersion map[string]int
}

func newWorld(sp spec) *world {
	w := &world{sp: sp, now: t0, replicas: map[int]*replica{}, volumes: map[int]bool{}, kube: newKube(), broken: map[int]bool{},
		condemnedUnderDelete: map[int]bool{}, backInRange: map[int]bool{}, histVersion: map[string]int{}}
	w.record()
	return w
}

func (w *world) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("t=%-3d ", int(w.now.Sub(t0)/time.Second))+fmt.Sprintf(format, args...))
}

func rev(version int) string { return fmt.Sprintf("v%d", version) }

func unrev(r string) int {
	var v int
	if _, err := fmt.Sscanf(r, "v%d", &v); err != nil {
		panic("revision " + r)
	}
	return v
}

func (w *world) ords() []int { return slices.Sorted(maps.Keys(w.replicas)) }

// pods are the replicas as pods: phase, Ready condition and its time,
// deletion timestamp, on the pod the controller created.
func (w *world) pods() []*v1.Pod {
	var out []*v1.Pod
	for _, ord := range w.ords() {
		r := w.replicas[ord]
		p := r.pod.DeepCopy()
		p.Status = v1.PodStatus{Phase: v1.PodRunning}
		cond := v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionFalse, LastTransitionTime: metav1.NewTime(r.created)}
		if r.ready {
			cond = v1.PodCondition{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.NewTime(r.readySince)}
		}
		p.Status.Conditions = []v1.PodCondition{cond}
		switch r.state {
		case failed:
			p.Status.Phase = v1.PodFailed
			p.Status.Conditions[0].Status = v1.ConditionFalse
		case terminating:
			p.DeletionTimestamp = &metav1.Time{Time: w.now}
		}
		out = append(out, p)
		w.kube.pods[p.Name] = p.DeepCopy()
	}
	return out
}

// input is the world as ostset's planner sees it: a container's state,
// health, revision and since when it is ready.
func (w *world) input() plan.Input {
	set := w.sp.ostsetSet()
	var obs plan.Observed
	for _, ord := range w.ords() {
		r := w.replicas[ord]
		pr := plan.Replica{ID: fmt.Sprintf("c%d-%d", ord, r.created.Unix()), Name: plan.ReplicaName(setName, ord), Ordinal: ord,
			Revision: rev(r.version), State: plan.StateRunning, Health: plan.HealthStarting, Created: r.created}
		switch {
		case r.state == failed:
			pr.State, pr.Health = plan.StateExited, plan.HealthNone
		case r.state == terminating:
			pr.State = plan.StateRemoving
		case r.ready:
			pr.Health, pr.ReadySince = plan.HealthHealthy, r.readySince
		case r.sick:
			pr.Health = plan.HealthUnhealthy
		}
		obs.Replicas = append(obs.Replicas, pr)
	}
	for _, ord := range slices.Sorted(maps.Keys(w.volumes)) {
		obs.Volumes = append(obs.Volumes, plan.Volume{Name: "data-" + plan.ReplicaName(setName, ord), Claim: "data", Ordinal: ord})
	}
	w.condemned = plan.SettleCondemned(set, w.condemned, obs)
	cur := w.current
	if cur == "" {
		cur = rev(w.sp.version)
	}
	return plan.Input{Set: set, CurrentRevision: cur, UpdateRevision: rev(w.sp.version), Observed: obs, Now: w.now,
		CondemnedVolumes: w.condemned}
}

// step is one replica step of a pass: a create at a version, or a delete.
type step struct {
	create  bool
	ord     int
	version int
	// other names a kind of step Kubernetes has no counterpart of (start).
	other string
}

func (s step) String() string {
	if s.other != "" {
		return fmt.Sprintf("%s %s-%d", s.other, setName, s.ord)
	}
	if s.create {
		return fmt.Sprintf("create %s-%d at v%d", setName, s.ord, s.version)
	}
	return fmt.Sprintf("delete %s-%d", setName, s.ord)
}

func sortSteps(ss []step) []step {
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].create != ss[j].create {
			return !ss[i].create
		}
		return ss[i].ord < ss[j].ord
	})
	return ss
}

func stepsString(ss []step) string {
	if len(ss) == 0 {
		return "nothing"
	}
	var out []string
	for _, s := range ss {
		out = append(out, s.String())
	}
	return strings.Join(out, ", ")
}

// state renders the world for a trace.
func (w *world) state() string {
	var out []string
	for _, ord := range w.ords() {
		r := w.replicas[ord]
		s := fmt.Sprintf("%d@v%d:%s", ord, r.version, r.state)
		if r.state == running {
			switch {
			case r.ready:
				s += fmt.Sprintf(",ready@%d", int(r.readySince.Sub(t0)/time.Second))
			case r.sick:
				s += ",unready(sick)"
			default:
				s += ",starting"
			}
		}
		out = append(out, s)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// tick lets a second pass: terminations end, running replicas that are not
// sick become ready. It reports whether anything changed or will change by
// time alone.
func (w *world) tick() bool {
	changing := false
	w.now = w.now.Add(time.Second)
	for _, ord := range w.ords() {
		r := w.replicas[ord]
		switch {
		case r.state == terminating:
			changing = true
			if r.termTicks--; r.termTicks <= 0 {
				w.remove(ord)
			}
		case r.state == running && !r.ready && !r.sick:
			changing = true
			r.ready, r.readySince = true, w.now
		case r.state == running && r.ready && w.now.Sub(r.readySince) <= time.Duration(w.sp.minReady)*time.Second:
			changing = true
		}
	}
	return changing
}

// remove takes a replica out of the world: its container is gone, and its
// pod is removed from the API server (the garbage collector takes the claims
// it owns).
func (w *world) remove(ord int) {
	r := w.replicas[ord]
	delete(w.replicas, ord)
	w.kube.removePod(r.pod.Name)
}

// available: ready for minReadySeconds.
func (w *world) available(r *replica) bool {
	return r.state == running && r.ready && w.now.Sub(r.readySince) >= time.Duration(w.sp.minReady)*time.Second
}

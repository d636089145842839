package oracle

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apps "k8s.io/api/apps/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/features"
	"pgregory.net/rapid"

	"github.com/ostset/ostset/engine/plan"
)

// TestMain takes the number of random histories from ORACLE_HISTORIES (the
// -rapid.checks flag otherwise) and keeps the controller's logging quiet.
func TestMain(m *testing.M) {
	flag.Parse()
	if n := os.Getenv("ORACLE_HISTORIES"); n != "" {
		if err := flag.Set("rapid.checks", n); err != nil {
			fmt.Fprintln(os.Stderr, "ORACLE_HISTORIES:", err)
			os.Exit(2)
		}
	}
	klog.SetOutput(nopWriter{})
	klog.LogToStderr(false)
	os.Exit(m.Run())
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// gates turns on what Kubernetes 1.37 has on by default for StatefulSets.
func gates(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.MaxUnavailableStatefulSet, true)
	if recreateSupported {
		featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.StatefulSetRecreateStrategy, true)
	}
}

// divergence is a pass, or a quiet state, where the controllers disagree.
type divergence struct {
	what         string // "steps", "status" or "claims"
	kube, ostset string
	before       *world // the world the pass saw (steps)
	kubeSteps    []step
	ostsetSteps  []step
	// seen is the world the pass saw, for a difference of status.
	seen string
	// condemnedLeft: the pass saw replicas outside the desired range.
	condemnedLeft bool
	// The ordinals with claims, and with volumes (claims).
	kubeClaims, ostsetVolumes map[int]bool
	// condemnedUnderDelete: the ordinal's replica was outside the range
	// under whenScaled: Delete at some pass.
	condemnedUnderDelete map[int]bool
	// backInRange: the ordinal's replica, so condemned, was in the range
	// again at some pass (ostset forgot the condemnation then).
	backInRange map[int]bool
}

// pass has both controllers look at the world once and compares what they
// ask for. When they agree it carries the steps out and reports whether
// there were none; otherwise it returns the divergence and leaves the world.
func (w *world) pass() (quiet bool, d *divergence, ks *apps.StatefulSetStatus, p plan.Plan) {
	w.passes++
	for ord := range w.replicas {
		if w.sp.scaledDelete && outside(w.sp, ord) {
			w.condemnedUnderDelete[ord] = true
		}
		if w.condemnedUnderDelete[ord] && !outside(w.sp, ord) {
			w.backInRange[ord] = true
		}
	}
	in := w.input()
	w.trimHistory()
	p = plan.MakePlan(in)
	// A pass that removes volumes holds back the creates of their ordinals
	// (and in OrderedReady does nothing else); the controller's next pass
	// follows at once: the volumes are removed first and the pass planned
	// again, as Kubernetes' garbage collector deletes the claims beside the
	// controller.
	var volumeDeletes []int
	for removesVolumes(p) {
		w.condemned = p.CondemnedVolumes
		for _, a := range p.Actions {
			if a.Kind == plan.ActDeleteVolume {
				volumeDeletes = append(volumeDeletes, a.Ordinal)
				delete(w.volumes, a.Ordinal)
			}
		}
		in = w.input()
		p = plan.MakePlan(in)
	}
	claims := w.kube.claimOrdinals() // as the pass finds them
	ks, err := w.kube.pass(w.sp, w.pods(), w.now)
	if err != nil {
		panic(fmt.Sprintf("Kubernetes' controller: %v", err))
	}
	var kube, ost []step
	for _, pod := range w.kube.created {
		kube = append(kube, step{create: true, ord: ordinalOf(pod.Name), version: w.kube.version(podRevision(pod))})
	}
	for _, pod := range w.kube.deleted {
		// One pass may delete a pod twice (a failed pod at an old revision
		// in Parallel: once as failed, once for the update); the second
		// delete of a pod already being deleted changes nothing.
		if s := (step{ord: ordinalOf(pod.Name)}); !slices.Contains(kube, s) {
			kube = append(kube, s)
		}
	}
	for _, a := range p.Actions {
		switch a.Kind {
		case plan.ActCreate:
			ost = append(ost, step{create: true, ord: a.Ordinal, version: unrev(a.Revision)})
		case plan.ActDelete:
			// A delete with Recreate also creates the replacement in the
			// same pass; Kubernetes creates it on the next. Both end with the
			// same replacement at the same revision: it is compared then.
			ost = append(ost, step{ord: a.Ordinal})
		default:
			ost = append(ost, step{ord: a.Ordinal, other: a.Kind.String()}) // no counterpart in Kubernetes
		}
	}
	sortSteps(kube)
	sortSteps(ost)
	if !slices.Equal(kube, ost) {
		return false, &divergence{what: "steps", kube: stepsString(kube), ostset: stepsString(ost), before: w, kubeSteps: kube, ostsetSteps: ost}, ks, p
	}
	if kk, ok := fmt.Sprint(w.kube.kept()), fmt.Sprint(w.kept()); kk != ok {
		w.passDiffs = append(w.passDiffs, &divergence{what: "history", kube: "revisions of versions " + kk, ostset: "revisions of versions " + ok, before: w, seen: w.state()})
	}
	w.passDiffs = append(w.passDiffs, w.compareStatus(ks, p, false)...)
	if d := w.compareClaims(claims, volumeDeletes); d != nil {
		w.passDiffs = append(w.passDiffs, d)
	}
	if len(kube) > 0 || len(volumeDeletes) > 0 {
		w.logf("%s %s: %s", w.sp, w.state(), stepsString(kube))
	}
	w.condemned = p.CondemnedVolumes
	for _, s := range kube {
		if s.create {
			continue
		}
		w.remove(s.ord)
	}
	for _, pod := range w.kube.created {
		ord := ordinalOf(pod.Name)
		v := w.kube.version(podRevision(pod))
		w.replicas[ord] = &replica{ord: ord, version: v, state: running, created: w.now, pod: pod, sick: w.broken[v]}
		delete(w.condemnedUnderDelete, ord)
		delete(w.backInRange, ord)
		w.volumes[ord] = true
	}
	w.current = p.Status.CurrentRevision
	return len(kube) == 0 && len(volumeDeletes) == 0, nil, ks, p
}

// trimHistory trims ostset's history as a pass does when it observes the
// world (state.Saw), from the current revision the last pass left.
func (w *world) trimHistory() {
	if w.current != "" {
		w.hist.CurrentRevision = revisionName(unrev(w.current))
	}
	var obs plan.Observed
	for _, ord := range w.ords() {
		obs.Replicas = append(obs.Replicas, plan.Replica{Ordinal: ord, Revision: revisionName(w.replicas[ord].version)})
	}
	w.hist.TrimHistory(obs)
}

// deleteSet deletes the set once both are quiet: Kubernetes' garbage
// collector takes every pod, the claims the pods own and, under whenDeleted:
// Delete, those the set owns; ostset down removes the replicas, the volumes
// of condemned replicas, and under whenDeleted: Delete all others. The
// claims left must agree.
func (w *world) deleteSet() []*divergence {
	obs := w.input().Observed
	w.kube.deleteSet()
	claims := w.kube.claimOrdinals()
	vols := map[int]bool{}
	if _, others := plan.VolumesOnDelete(w.sp.ostsetSet(), w.condemned, obs); !w.sp.deletedDelete {
		for _, v := range others {
			vols[v.Ordinal] = true
		}
	}
	w.logf("event: the set is deleted")
	kc := fmt.Sprint(slices.Sorted(maps.Keys(claims)))
	oc := fmt.Sprint(slices.Sorted(maps.Keys(vols)))
	if kc == oc {
		return nil
	}
	return []*divergence{{what: "claims after the delete", kube: "claims of ordinals " + kc, ostset: "volumes of ordinals " + oc, before: w,
		seen: w.state(), kubeClaims: claims, ostsetVolumes: vols,
		condemnedUnderDelete: maps.Clone(w.condemnedUnderDelete), backInRange: maps.Clone(w.backInRange)}}
}

func removesVolumes(p plan.Plan) bool {
	return slices.ContainsFunc(p.Actions, func(a plan.Action) bool { return a.Kind == plan.ActDeleteVolume })
}

// settle lets both controllers act, and time pass, until neither asks for
// anything and nothing changes by time alone; then it compares the status.
// Every pass compares the status and the claims too. A divergence of steps ends the settling (the controllers
// would go on from different worlds); differences of status or claims leave
// the world as it is.
func (w *world) settle() []*divergence { return w.settleFor(0) }

// settleFor is settle, cut short after limit passes when limit > 0 (the
// next event comes while the controllers are still acting). It returns the
// divergences in the order of the passes, a divergence of steps after those
// of the passes before it: one may be the consequence of an earlier one.
func (w *world) settleFor(limit int) []*divergence {
	for i := range 100 {
		if limit > 0 && i == limit {
			return w.takeDiffs()
		}
		quiet, d, ks, p := w.pass()
		if d != nil {
			return append(w.takeDiffs(), d)
		}
		if changing := w.tick(); quiet && !changing {
			return append(w.takeDiffs(), w.compareQuiet(ks, p)...)
		}
	}
	return append(w.takeDiffs(), &divergence{what: "convergence", kube: "still acting after 100 passes", ostset: "still acting after 100 passes", before: w})
}

// takeDiffs returns the divergences the passes found so far and forgets them.
func (w *world) takeDiffs() []*divergence {
	ds := w.passDiffs
	w.passDiffs = nil
	return ds
}

// compareQuiet compares, field by field, the status both controllers report
// on a quiet world, and the claims left.
func (w *world) compareQuiet(ks *apps.StatefulSetStatus, p plan.Plan) []*divergence {
	return w.compareStatus(ks, p, true)
}

// compareClaims compares, before a pass's steps are carried out, the claims
// Kubernetes has with ostset's volumes, but for those the pass removes:
// Kubernetes' garbage collector deletes a condemned pod's claims as the pod
// goes, ostset removes the volumes on its next pass.
func (w *world) compareClaims(claims map[int]bool, removing []int) *divergence {
	vols := maps.Clone(w.volumes)
	for _, ord := range removing {
		delete(vols, ord)
	}
	kc := fmt.Sprint(slices.Sorted(maps.Keys(claims)))
	oc := fmt.Sprint(slices.Sorted(maps.Keys(vols)))
	if kc == oc {
		return nil
	}
	d := &divergence{what: "claims", kube: "claims of ordinals " + kc, ostset: "volumes of ordinals " + oc, before: w,
		seen: w.state(), kubeClaims: claims, ostsetVolumes: vols,
		condemnedUnderDelete: maps.Clone(w.condemnedUnderDelete), backInRange: maps.Clone(w.backInRange)}
	return d
}

// compareStatus compares the status of one pass field by field. Within a
// pass that acts, Kubernetes has taken its update deletes off
// currentReplicas; the others count the replicas the pass saw, as ostset's.
func (w *world) compareStatus(ks *apps.StatefulSetStatus, p plan.Plan, quiet bool) []*divergence {
	s := p.Status
	fields := []struct {
		name         string
		kube, ostset int
	}{
		{"replicas", int(ks.Replicas), s.Replicas},
		{"readyReplicas", int(ks.ReadyReplicas), s.ReadyReplicas},
		{"availableReplicas", int(ks.AvailableReplicas), s.AvailableReplicas},
		{"currentReplicas", int(ks.CurrentReplicas), s.CurrentReplicas},
		{"updatedReplicas", int(ks.UpdatedReplicas), s.UpdatedReplicas},
		{"currentRevision", w.kube.version(ks.CurrentRevision), unrev(s.CurrentRevision)},
		{"updateRevision", w.kube.version(ks.UpdateRevision), unrev(s.UpdateRevision)},
	}
	condemnedLeft := false
	for ord := range w.replicas {
		condemnedLeft = condemnedLeft || ord < w.sp.start || ord >= w.sp.start+w.sp.replicas
	}
	var out []*divergence
	for _, f := range fields {
		if f.kube != f.ostset && (quiet || f.name != "currentReplicas") {
			d := &divergence{what: "status." + f.name, kube: fmt.Sprint(f.kube), ostset: fmt.Sprint(f.ostset), before: w, seen: w.state(),
				condemnedLeft: condemnedLeft}
			out = append(out, d)
		}
	}
	return out
}

// allowance accepts a known, documented difference: Rule names the planning
// rule, Doc the section of docs/kubernetes.md that explains it. Match
// accepts a difference of status or claims; Step explains one step that one
// controller takes and the other does not: a divergence of steps is accepted
// when each such step is explained by an allowance; Volume likewise explains
// one volume of a divergence of claims.
type allowance struct {
	Rule  string
	Doc   string
	Match func(d *divergence) bool
	Step  func(d *divergence, s step) bool
	// Volume explains a volume ostset keeps whose claim Kubernetes deleted.
	Volume func(d *divergence, ord int) bool
}

var (
	acceptedMu sync.Mutex
	accepted   = map[string]int{}
)

// allowed returns the allowances that accept d, none if d is new.
func allowed(d *divergence) []*allowance {
	var all []*allowance
	for _, list := range [][]allowance{allowances, knownDefects} {
		for i := range list {
			all = append(all, &list[i])
		}
	}
	if d.what == "claims" || d.what == "claims after the delete" {
		return explainVolumes(d, all)
	}
	if d.what != "steps" {
		for _, a := range all {
			if a.Match != nil && a.Match(d) {
				return []*allowance{a}
			}
		}
		return nil
	}
	var used []*allowance
	for _, s := range differing(d) {
		i := slices.IndexFunc(all, func(a *allowance) bool { return a.Step != nil && a.Step(d, s) })
		if i < 0 {
			return nil
		}
		if !slices.Contains(used, all[i]) {
			used = append(used, all[i])
		}
	}
	return used
}

// explainVolumes accepts a divergence of claims where ostset keeps volumes
// whose claims Kubernetes deleted, each explained by an allowance.
func explainVolumes(d *divergence, all []*allowance) []*allowance {
	var used []*allowance
	for ord := range d.kubeClaims {
		if !d.ostsetVolumes[ord] {
			return nil
		}
	}
	for _, ord := range slices.Sorted(maps.Keys(d.ostsetVolumes)) {
		if d.kubeClaims[ord] {
			continue
		}
		i := slices.IndexFunc(all, func(a *allowance) bool { return a.Volume != nil && a.Volume(d, ord) })
		if i < 0 {
			return nil
		}
		if !slices.Contains(used, all[i]) {
			used = append(used, all[i])
		}
	}
	return used
}

// event changes the spec or the world as a person or the machine would.
func (w *world) event(t *rapid.T, maxVersion *int) {
	ords := w.ords()
	pick := func() (*replica, bool) {
		if len(ords) == 0 {
			return nil, false
		}
		return w.replicas[rapid.SampledFrom(ords).Draw(t, "ordinal")], true
	}
	switch ev := rapid.IntRange(0, 14).Draw(t, "event"); ev {
	case 0:
		w.sp.replicas = rapid.IntRange(0, 5).Draw(t, "replicas")
		w.logf("event: scale to %d", w.sp.replicas)
	case 1:
		*maxVersion++
		w.sp.version = *maxVersion
		w.record()
		if rapid.IntRange(0, 2).Draw(t, "broken") == 0 {
			w.broken[w.sp.version] = true
			w.logf("event: template changed to v%d, whose replicas never become ready", w.sp.version)
			break
		}
		w.logf("event: template changed to v%d", w.sp.version)
	case 2:
		w.sp.version = rapid.IntRange(1, *maxVersion).Draw(t, "undo to")
		w.record()
		w.logf("event: template set back to v%d", w.sp.version)
	case 3:
		w.sp.partition = rapid.IntRange(0, 4).Draw(t, "partition")
		w.logf("event: partition %d", w.sp.partition)
	case 4:
		w.sp.maxUnavailable = rapid.SampledFrom([]string{"1", "2", "50%"}).Draw(t, "maxUnavailable")
		w.logf("event: maxUnavailable %s", w.sp.maxUnavailable)
	case 5:
		if r, ok := pick(); ok && r.state == running {
			r.state, r.ready = failed, false
			w.logf("event: %s-%d fails (exits; pod phase Failed)", setName, r.ord)
		}
	case 6:
		if r, ok := pick(); ok && r.state == running {
			r.sick, r.ready = true, false
			w.logf("event: %s-%d becomes unready", setName, r.ord)
		}
	case 7:
		for _, r := range w.replicas {
			r.sick = w.broken[r.version]
		}
		w.logf("event: every replica's probe passes again")
	case 8:
		if r, ok := pick(); ok && r.state != terminating {
			w.remove(r.ord)
			w.logf("event: %s-%d deleted by hand", setName, r.ord)
		}
	case 9:
		if r, ok := pick(); ok && r.state != terminating {
			r.state, r.ready, r.termTicks = terminating, false, 3
			w.logf("event: %s-%d deleted by hand, takes 3s to terminate", setName, r.ord)
		}
	case 10:
		w.sp.minReady = rapid.IntRange(0, 3).Draw(t, "minReadySeconds")
		w.logf("event: minReadySeconds %d", w.sp.minReady)
	case 11:
		w.sp.scaledDelete = !w.sp.scaledDelete
		w.logf("event: whenScaled %v", map[bool]string{true: "Delete", false: "Retain"}[w.sp.scaledDelete])
	case 12:
		w.sp.onDelete, w.sp.recreate = drawStrategy(t)
		w.logf("event: updateStrategy %v", strategyName(w.sp))
	case 13:
		w.sp.start = rapid.IntRange(0, 2).Draw(t, "ordinals.start")
		w.logf("event: ordinals.start %d", w.sp.start)
	case 14:
		w.sp.historyLimit = rapid.IntRange(0, 3).Draw(t, "revisionHistoryLimit")
		w.record()
		w.logf("event: revisionHistoryLimit %d", w.sp.historyLimit)
	}
}

// drawStrategy draws the update strategy: RollingUpdate most often,
// OnDelete, and Recreate where ostset has it.
func drawStrategy(t *rapid.T) (onDelete, recreate bool) {
	n := 3
	if recreateSupported {
		n = 4
	}
	switch rapid.IntRange(0, n).Draw(t, "strategy") {
	case 0:
		return true, false
	case 4:
		return false, true
	}
	return false, false
}

func strategyName(sp spec) string {
	switch {
	case sp.onDelete:
		return "OnDelete"
	case sp.recreate:
		return "Recreate"
	}
	return "RollingUpdate"
}

func drawSpec(t *rapid.T) spec {
	sp := spec{
		replicas:       rapid.IntRange(0, 5).Draw(t, "replicas"),
		start:          rapid.IntRange(0, 2).Draw(t, "start"),
		parallel:       rapid.Bool().Draw(t, "parallel"),
		partition:      rapid.IntRange(0, 4).Draw(t, "partition"),
		maxUnavailable: rapid.SampledFrom([]string{"1", "2", "50%"}).Draw(t, "maxUnavailable"),
		minReady:       rapid.IntRange(0, 3).Draw(t, "minReadySeconds"),
		scaledDelete:   rapid.Bool().Draw(t, "whenScaled Delete"),
		deletedDelete:  rapid.Bool().Draw(t, "whenDeleted Delete"),
		historyLimit:   rapid.IntRange(0, 3).Draw(t, "revisionHistoryLimit"),
		version:        1,
	}
	sp.onDelete, sp.recreate = drawStrategy(t)
	return sp
}

// check reports divergences: allowed ones are counted, any other fails the
// test with the history that led to it. It reports whether the history ends
// (the steps diverged).
func check(t fataler, w *world, ds []*divergence) (stop bool) {
	for _, d := range ds { // in the order of the passes
		if stop {
			break // consequences of an accepted divergence
		}
		if as := allowed(d); len(as) > 0 {
			acceptedMu.Lock()
			for _, a := range as {
				accepted[a.Rule]++
			}
			acceptedMu.Unlock()
			// After different steps, claims, or a different current revision (which
			// each keeps for its next pass), the two go on from different
			// states: what follows would be consequences.
			stop = stop || d.what == "steps" || d.what == "status.currentRevision" || d.what == "claims"
			continue
		}
		seen := w.state()
		if d.seen != "" {
			seen = d.seen
		}
		t.Fatalf("the planner and Kubernetes' StatefulSet controller differ (%s)\nhistory:\n  %s\nspec %s\nworld %s\nKubernetes: %s\nostset:     %s",
			d.what, strings.Join(w.trace, "\n  "), w.sp, seen, d.kube, d.ostset)
	}
	return stop
}

// progressEvery is how often a run prints how many histories it has run.
const progressEvery = 50000

// fataler is a *testing.T or a *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// TestOracle runs random histories of spec changes and replica events; after
// each, both controllers act until quiet on the same observed state, and
// every pass's steps, then the status and the claims, must agree or be a
// documented difference (allowances).
func TestOracle(t *testing.T) {
	gates(t)
	began := time.Now()
	var histories atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		// A long run says how far it got (rapid reports only at the end).
		if n := histories.Add(1); n%progressEvery == 0 {
			fmt.Fprintf(os.Stderr, "oracle: %d histories in %s (%.0f/s)\n", n, time.Since(began).Round(time.Second), float64(n)/time.Since(began).Seconds())
		}
		w := newWorld(drawSpec(t))
		w.logf("start: %s", w.sp)
		maxVersion := 1
		if check(t, w, w.settle()) {
			return
		}
		for range rapid.IntRange(1, 12).Draw(t, "events") {
			w.event(t, &maxVersion)
			// 0: the next event waits until both are quiet.
			if check(t, w, w.settleFor(rapid.IntRange(0, 4).Draw(t, "passes before the next event"))) {
				return
			}
		}
		if check(t, w, w.settle()) {
			return
		}
		if rapid.Bool().Draw(t, "delete the set") {
			check(t, w, w.deleteSet())
		}
	})
	acceptedMu.Lock()
	defer acceptedMu.Unlock()
	for _, rule := range slices.Sorted(maps.Keys(accepted)) {
		t.Logf("divergences accepted as known (%q): %d", rule, accepted[rule])
	}
}

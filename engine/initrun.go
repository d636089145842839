package engine

import (
	"context"
	"fmt"
	"sync"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// createInit runs an ActCreateInit. The first init container of an ordinal is
// what creates its volumes, so it says, as a replica would, when it reuses one
// from an earlier life of the ordinal; the volumes are then handed over to the
// replica being created, which has nothing to say about them.
func (c *Controller) createInit(ctx context.Context, st *state.State, mu *sync.Mutex, a plan.Action) error {
	set := st.Spec.Name
	rev, ok := st.Revision(a.Revision)
	if !ok {
		return fmt.Errorf("%s: revision %s is not in the history", a.Name, a.Revision)
	}
	spec, err := plan.RenderInit(st.Spec, rev.Name, rev.Spec, a.Ordinal, a.Init)
	if err == nil {
		err = c.labelOwner(&spec)
	}
	if err == nil {
		err = c.resolveEnv(&spec)
	}
	if err == nil {
		err = c.giveFiles(ctx, &spec)
	}
	if err != nil {
		return err
	}
	res, err := c.Runtime.CreateReplica(ctx, spec)
	if err != nil {
		return err
	}
	replica := plan.ReplicaName(set, a.Ordinal)
	c.emit(set, replica, "%s created (revision %s)", a.Name, a.Revision)
	mu.Lock()
	defer mu.Unlock()
	for _, v := range res.ReusedVolumes {
		if msg := staleVolume(replica, v, st.VolumeUse[v.Name]); msg != "" {
			c.emit(set, replica, "%s", msg)
		}
	}
	st.UseVolumes(spec.Volumes, a.Revision, c.now())
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
func (l *initLogs) fill(ctx context.Context, rt Runtime, set string, obs *plan.Observed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string][]string{}
	for i, c := range obs.Inits {
		if !c.Failed() {
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

// initLogLines is how many of a failed init container's last lines status shows.
const initLogLines = 5

package live

import (
	"fmt"
	"strconv"

	tea "charm.land/bubbletea/v2"
)

// A scale asked for by key (+, -, s) counts from the replicas asked for last,
// not from the last read: three quick presses of + on a set of 1 scale it to 4,
// though no read shows 2 before the second press. The scale commands of a
// set run one at a time, in order: a press while one runs waits for it, and
// then only the last number asked for is run (commands run side by side could
// end in any order, the last to take the set's lock winning).

// pendingScale is a scale of one set asked for by key that a read may not
// show yet.
type pendingScale struct {
	want    int // the replicas asked for last
	running int // the replicas of the scale command under way; -1: none
	// done: the commands finished; read: a read of the sets began since, so
	// the snapshot it brings shows want and the scale is no longer pending.
	done, read bool
}

// scaleTo asks for n replicas of set: a scale command now, or when the one
// under way ends.
func (m *viewModel) scaleTo(set string, n int) tea.Cmd {
	if m.scales == nil {
		m.scales = map[string]*pendingScale{}
	}
	p := m.scales[set]
	if p == nil {
		p = &pendingScale{running: -1}
		m.scales[set] = p
	}
	p.want, p.done, p.read = n, false, false
	if p.running >= 0 {
		m.outcomes = append(m.outcomes, fmt.Sprintf("scale %s to %d: after the scale to %d under way", set, n, p.running))
		return nil
	}
	p.running = n
	return m.deps.run("scale", set, "--replicas", strconv.Itoa(n))
}

// scaleDone takes the end of a scale command in: the next scale of its set,
// if another number was asked for meanwhile. A scale that failed drops what
// was pending: the next press counts from what a read shows.
func (m *viewModel) scaleDone(msg actionMsg) tea.Cmd {
	if len(msg.args) != 4 || msg.args[0] != "scale" || msg.args[2] != "--replicas" {
		return nil
	}
	set := msg.args[1]
	p := m.scales[set]
	if p == nil || strconv.Itoa(p.running) != msg.args[3] {
		return nil
	}
	ran := p.running
	p.running = -1
	switch {
	case msg.err != nil:
		delete(m.scales, set)
	case p.want != ran:
		p.running = p.want
		return m.deps.run("scale", set, "--replicas", strconv.Itoa(p.want))
	default:
		p.done = true
	}
	return nil
}

// scalesReading notes that a read of the sets begins: it shows the scales
// whose commands are done.
func (m *viewModel) scalesReading() {
	for _, p := range m.scales {
		p.read = p.read || p.done
	}
}

// scalesRead drops the scales that the snapshot just taken in shows.
func (m *viewModel) scalesRead() {
	for set, p := range m.scales {
		if p.read {
			delete(m.scales, set)
		}
	}
}

// desired is the number of replicas set is to have: the last asked for here,
// else the last read.
func (m viewModel) desired(set string) int {
	if p := m.scales[set]; p != nil {
		return p.want
	}
	for _, r := range m.snap.Sets {
		if r.Name == set {
			return r.Replicas
		}
	}
	return 0
}

// ordinalsStart is set's first ordinal, as last read.
func (m viewModel) ordinalsStart(set string) int {
	return m.snap.Detail[set].State.Spec.FirstOrdinal()
}

package live

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	units "github.com/docker/go-units"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

// The terminal view (ostset view) is an Elm-style model: a snapshot of the
// sets comes in as a message, keys come in as messages, and View is a pure
// function of the model, so tests render it and script keys without a
// terminal. What it does to the sets goes out as actions: the same command
// lines a user would type, run by the caller (viewDeps).

// viewSnapshot is what the view shows, read at one moment: every set, or
// (Only) the sets that changed.
type viewSnapshot struct {
	Sets   []SetRow
	Detail map[string]viewDetail // by set: its replicas and events
	Daemon daemonInfo
	At     time.Time
	// Only, when not nil, names the sets read: the others are as they were.
	// A set named here but not in Sets is gone.
	Only []string
}

type viewDetail struct {
	State  state.State
	Status plan.Status
	Events []state.Event
}

// daemonInfo says whether a daemon keeps the state directory's sets converged.
type daemonInfo struct {
	Running bool
	PID     int
}

// Messages.
type (
	snapshotMsg viewSnapshot
	// changedMsg: Docker or the state directory changed set ("": every
	// set); a refresh is due.
	changedMsg struct{ set string }
	refreshMsg struct{} // the throttle passed: read what changed now
	resyncMsg  struct{} // the 30 s resync
	actionMsg  struct {
		what  string
		args  []string // the command line run
		lines []string
		err   error
	}
	shellDoneMsg struct{ err error }
	statsTickMsg struct{}
	// statsMsg holds one stats sample per replica of set, by name.
	statsMsg struct {
		set     string
		samples map[string]Usage
	}
	// logMsg brings the lines a log stream read since the last one.
	logMsg struct {
		from  *logStream
		lines []string
		done  bool
	}
)

// Usage is one reading of a container's resource use, as docker stats takes
// it: CPU as cumulative counters (a share needs two samples), memory as used
// now.
type Usage struct {
	CPU, System uint64 // the container's and the host's CPU time, ns
	OnlineCPUs  uint32
	Memory      uint64
	At          time.Time
}

// CPUPercent is the container's CPU use between two samples, in percent of
// one CPU, as docker stats reports it; ok is false when it cannot be told.
func CPUPercent(prev, cur Usage) (float64, bool) {
	dc, ds := float64(cur.CPU)-float64(prev.CPU), float64(cur.System)-float64(prev.System)
	if prev.At.IsZero() || ds <= 0 || dc < 0 {
		return 0, false
	}
	cpus := float64(cur.OnlineCPUs)
	if cpus == 0 {
		cpus = 1
	}
	return dc / ds * cpus * 100, true
}

// statsEvery is how often the replicas shown get a stats sample: CPU is the
// share between two of them.
const statsEvery = 5 * time.Second

// viewDeps is what the model asks of the world, as commands.
type viewDeps struct {
	// load reads a snapshot of the named sets (nil: every set), with the
	// details (events) of set.
	load func(sets []string, set string) tea.Cmd
	// run runs an ostset command line (scale, rollout …, recreate) and
	// reports its output as an actionMsg.
	run func(args ...string) tea.Cmd
	// shell hands the terminal to an interactive shell in a replica.
	shell func(replica string) tea.Cmd
	// next waits for the next change.
	next tea.Cmd
	// stats samples the resource use of the set's replicas (container IDs by name).
	stats func(set string, ids map[string]string) tea.Cmd
	// follow streams the output of a container of set, from its last lines
	// on; nil: no logs pane.
	follow func(set, id string) *logStream
	// now is the clock of the throttle.
	now func() time.Time
}

type viewKeys struct {
	Up, Down, Enter, Back, Filter, Help, Quit           key.Binding
	ScaleUp, ScaleDown, Scale, Restart, Undo, Partition key.Binding
	Pause, Resume, Recreate, Shell                      key.Binding
}

func newViewKeys() viewKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return viewKeys{
		Up: b("↑/k", "up", "up", "k"), Down: b("↓/j", "down", "down", "j"),
		Enter: b("enter", "replicas of the set", "enter"), Back: b("esc", "back to the sets", "esc"),
		Filter: b("/", "filter", "/"), Help: b("?", "keys", "?"), Quit: b("q", "quit", "q", "ctrl+c"),
		ScaleUp: b("+", "scale up by one", "+"), ScaleDown: b("-", "scale down by one (asks first)", "-"),
		Scale: b("s", "scale to N", "s"), Restart: b("r", "rollout restart (asks first)", "r"), Undo: b("u", "rollout undo (asks first)", "u"),
		Partition: b("p", "rollout partition N", "p"), Pause: b("P", "rollout pause", "P"), Resume: b("R", "rollout resume", "R"),
		Recreate: b("d", "recreate the replica (asks first)", "d"), Shell: b("x", "shell in the replica", "x"),
	}
}

func (k viewKeys) ShortHelp() []key.Binding { return []key.Binding{k.Enter, k.Filter, k.Help, k.Quit} }
func (k viewKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Enter, k.Back, k.Filter, k.Help, k.Quit},
		{k.ScaleUp, k.ScaleDown, k.Scale, k.Partition},
		{k.Restart, k.Undo, k.Pause, k.Resume},
		{k.Recreate, k.Shell},
	}
}

type viewModel struct {
	deps   viewDeps
	keys   viewKeys
	help   help.Model
	snap   viewSnapshot
	loaded bool
	// set is the set whose replicas are shown ("": the sets' list).
	set             string
	cursor, rcursor int
	filter          string
	filtering       bool
	showHelp        bool
	// prompt asks for a number (scale, partition) or a y/n (recreate,
	// restart, undo, scale down).
	prompt, input string
	onInput       func(m *viewModel, input string) tea.Cmd
	yesNo         bool // the prompt takes one key, no enter
	// scales are the scales asked for by key that a read may not show yet
	// (see viewscale.go).
	scales map[string]*pendingScale
	// The refresh: the sets changed since the last read (all: every set),
	// whether a read is under way or a tick is scheduled, and when the last
	// read began.
	dirty            map[string]bool
	all              bool
	loading, waiting bool
	lastLoad         time.Time
	// The logs pane: the stream of the selected replica (key names the
	// replica, its container and whether it runs) and its last lines.
	logs            *logStream
	logKey, logsFor string
	logLines        []string
	outcomes        []string
	width, height   int
	// use is what the last stats samples say, by replica name.
	use map[string]replicaUse
}

type replicaUse struct {
	sample   Usage
	cpu, mem string
}

func newViewModel(deps viewDeps, set string) viewModel {
	if deps.now == nil {
		deps.now = time.Now
	}
	return viewModel{deps: deps, keys: newViewKeys(), help: help.New(), set: set, width: 120, height: 40, dirty: map[string]bool{}}
}

func (m viewModel) Init() tea.Cmd {
	return tea.Batch(m.deps.load(nil, m.set), m.deps.next, resyncTick(), statsTick())
}

func statsTick() tea.Cmd {
	return tea.Tick(statsEvery, func(time.Time) tea.Msg { return statsTickMsg{} })
}

func resyncTick() tea.Cmd {
	return tea.Tick(30*time.Second, func(time.Time) tea.Msg { return resyncMsg{} })
}

// refreshEvery throttles redraws to about 10 a second: a change is read at
// once unless a read began less than refreshEvery ago; then the changes
// that came since are read together when that time is up.
const refreshEvery = 100 * time.Millisecond

// logLines is how many lines of the selected replica's output the view keeps.
const logLines = 8

func (m viewModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case snapshotMsg:
		m.merge(viewSnapshot(msg))
		m.scalesRead()
		m.loaded, m.loading = true, false
		m.clamp()
		return m, tea.Batch(m.refresh(), m.followLogs())
	case changedMsg:
		m.changed(msg.set)
		return m, tea.Batch(m.deps.next, m.refresh())
	case refreshMsg:
		m.waiting = false
		return m, m.refresh()
	case resyncMsg:
		m.changed("")
		return m, tea.Batch(m.refresh(), resyncTick())
	case actionMsg:
		next := m.scaleDone(msg)
		line := msg.what + ": done"
		if msg.err != nil {
			line = msg.what + ": " + msg.err.Error()
		}
		m.outcomes = append(m.outcomes, msg.lines...)
		m.outcomes = append(m.outcomes, line)
		m.outcomes = m.outcomes[max(0, len(m.outcomes)-8):]
		m.changed("")
		return m, tea.Batch(next, m.refresh())
	case logMsg:
		if msg.from != m.logs {
			return m, nil // a stream the view left
		}
		m.logLines = append(m.logLines, msg.lines...)
		m.logLines = m.logLines[max(0, len(m.logLines)-logLines):]
		if msg.done {
			return m, nil
		}
		return m, m.logs.next
	case statsTickMsg:
		return m, tea.Batch(m.sampleStats(), statsTick())
	case statsMsg:
		m.takeStats(msg)
	case shellDoneMsg:
		if msg.err != nil {
			m.outcomes = append(m.outcomes, "shell: "+msg.err.Error())
		}
		m.changed(m.set)
		return m, m.refresh()
	case tea.KeyPressMsg:
		next, cmd := m.key(msg)
		nm := next.(viewModel)
		return nm, tea.Batch(cmd, nm.followLogs())
	}
	return m, nil
}

// changed notes that set ("": every set) is to be read again.
func (m *viewModel) changed(set string) {
	if set == "" {
		m.all = true
		return
	}
	if m.dirty == nil {
		m.dirty = map[string]bool{}
	}
	m.dirty[set] = true
}

// refresh reads what changed: at once, or when refreshEvery has passed since
// the last read began; nothing while a read is under way (its snapshot calls
// refresh again).
func (m *viewModel) refresh() tea.Cmd {
	if (!m.all && len(m.dirty) == 0) || m.loading || m.waiting {
		return nil
	}
	now := m.deps.now()
	if wait := m.lastLoad.Add(refreshEvery).Sub(now); wait > 0 {
		m.waiting = true
		return tea.Tick(wait, func(time.Time) tea.Msg { return refreshMsg{} })
	}
	var sets []string
	if !m.all {
		for name := range m.dirty {
			sets = append(sets, name)
		}
		slices.Sort(sets)
	}
	m.all, m.dirty = false, map[string]bool{}
	m.loading, m.lastLoad = true, now
	m.scalesReading()
	return m.deps.load(sets, m.set)
}

// merge takes a snapshot in: all of it, or the sets it read.
func (m *viewModel) merge(s viewSnapshot) {
	if s.Only == nil {
		m.snap = s
		return
	}
	detail := maps.Clone(m.snap.Detail)
	if detail == nil {
		detail = map[string]viewDetail{}
	}
	sets := slices.DeleteFunc(slices.Clone(m.snap.Sets), func(r SetRow) bool { return slices.Contains(s.Only, r.Name) })
	for _, name := range s.Only {
		delete(detail, name)
	}
	for name, d := range s.Detail {
		detail[name] = d
	}
	sets = append(sets, s.Sets...)
	slices.SortFunc(sets, func(a, b SetRow) int { return strings.Compare(a.Name, b.Name) })
	m.snap = viewSnapshot{Sets: sets, Detail: detail, Daemon: s.Daemon, At: s.At}
}

// followLogs follows the output of the selected replica: a new stream when
// the selection, its container or whether it runs changed (a stream ends
// when its container stops), none when no replica is selected.
func (m *viewModel) followLogs() tea.Cmd {
	if m.deps.follow == nil {
		return nil
	}
	var key, replica, id string
	if r := m.selectedReplica(); r != "" {
		for _, c := range m.snap.Detail[m.set].Status.Containers {
			if c.Name == r {
				replica, id = r, c.ID
				key = fmt.Sprintf("%s/%s/%v", r, c.ID, c.State == plan.StateRunning)
			}
		}
	}
	if key == m.logKey {
		return nil
	}
	if m.logs != nil {
		m.logs.stop()
	}
	m.logs, m.logKey, m.logsFor, m.logLines = nil, key, replica, nil
	if key == "" {
		return nil
	}
	m.logs = m.deps.follow(m.set, id)
	if m.logs == nil {
		return nil
	}
	return m.logs.next
}

// sampleStats asks for a stats sample of the running replicas shown.
func (m viewModel) sampleStats() tea.Cmd {
	d, ok := m.snap.Detail[m.set]
	if m.set == "" || !ok || m.deps.stats == nil {
		return nil
	}
	ids := map[string]string{}
	for _, c := range d.Status.Containers {
		if c.State == plan.StateRunning {
			ids[c.Name] = c.ID
		}
	}
	return m.deps.stats(m.set, ids)
}

// takeStats keeps the samples, and the CPU share since the previous one.
func (m *viewModel) takeStats(msg statsMsg) {
	if msg.set != m.set {
		return
	}
	use := map[string]replicaUse{}
	for name, s := range msg.samples {
		u := replicaUse{sample: s, cpu: "-", mem: units.BytesSize(float64(s.Memory))}
		if pct, ok := CPUPercent(m.use[name].sample, s); ok {
			u.cpu = fmt.Sprintf("%.1f%%", pct)
		}
		use[name] = u
	}
	m.use = use
}

func (m *viewModel) clamp() {
	m.cursor = max(0, min(m.cursor, len(m.visibleSets())-1))
	m.rcursor = max(0, min(m.rcursor, len(m.replicaRows())-1))
}

func (m viewModel) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	s := k.String()
	switch {
	case m.prompt != "":
		switch s {
		case "enter":
			cmd := m.onInput(&m, m.input)
			m.prompt, m.input, m.onInput, m.yesNo = "", "", nil, false
			return m, cmd
		case "esc":
			m.prompt, m.input, m.onInput, m.yesNo = "", "", nil, false
		case "backspace":
			m.input = m.input[:max(0, len(m.input)-1)]
		default:
			if len(s) == 1 {
				m.input += s
				if m.yesNo { // y/n needs no enter
					cmd := m.onInput(&m, m.input)
					m.prompt, m.input, m.onInput, m.yesNo = "", "", nil, false
					return m, cmd
				}
			}
		}
		return m, nil
	case m.filtering:
		switch s {
		case "enter", "esc":
			m.filtering = false
			if s == "esc" {
				m.filter = ""
			}
		case "backspace":
			m.filter = m.filter[:max(0, len(m.filter)-1)]
		default:
			if len(s) == 1 {
				m.filter += s
			}
		}
		m.clamp()
		return m, nil
	case m.showHelp:
		m.showHelp = false
		return m, nil
	}
	set := m.selectedSet()
	switch {
	case key.Matches(k, m.keys.Quit):
		return m, tea.Quit
	case key.Matches(k, m.keys.Help):
		m.showHelp = true
	case key.Matches(k, m.keys.Filter):
		m.filtering = true
	case key.Matches(k, m.keys.Up):
		m.move(-1)
	case key.Matches(k, m.keys.Down):
		m.move(1)
	case key.Matches(k, m.keys.Enter):
		if m.set == "" && set != "" {
			m.set, m.rcursor, m.use = set, 0, nil
			m.changed(set) // its events
			return m, tea.Batch(m.refresh(), m.sampleStats())
		}
	case key.Matches(k, m.keys.Back):
		m.set = ""
	case set == "":
	case key.Matches(k, m.keys.ScaleUp):
		return m, m.scaleTo(set, m.desired(set)+1)
	case key.Matches(k, m.keys.ScaleDown):
		if n := m.desired(set) - 1; n >= 0 {
			return m.confirm(fmt.Sprintf("scale %s down to %d, removing %s?", set, n, plan.ReplicaName(set, m.ordinalsStart(set)+n)),
				func(m *viewModel) tea.Cmd { return m.scaleTo(set, n) })
		}
	case key.Matches(k, m.keys.Scale):
		return m.ask("replicas of "+set+": ", func(m *viewModel, v string) tea.Cmd {
			if n, err := strconv.Atoi(v); err == nil && n >= 0 {
				return m.scaleTo(set, n)
			}
			return m.deps.run("scale", set, "--replicas", v) // says what is wrong with v
		})
	case key.Matches(k, m.keys.Partition):
		return m.ask("partition of "+set+": ", func(m *viewModel, v string) tea.Cmd { return m.deps.run("rollout", "partition", set, v) })
	case key.Matches(k, m.keys.Restart):
		return m.confirm("restart every replica of "+set+" (rollout restart)?", func(m *viewModel) tea.Cmd { return m.deps.run("rollout", "restart", set) })
	case key.Matches(k, m.keys.Undo):
		return m.confirm("roll "+set+" back to its previous revision (rollout undo)?", func(m *viewModel) tea.Cmd { return m.deps.run("rollout", "undo", set) })
	case key.Matches(k, m.keys.Pause):
		return m, m.deps.run("rollout", "pause", set)
	case key.Matches(k, m.keys.Resume):
		return m, m.deps.run("rollout", "resume", set)
	case key.Matches(k, m.keys.Recreate):
		if r := m.selectedReplica(); r != "" {
			return m.confirm("recreate "+r+"?", func(m *viewModel) tea.Cmd { return m.deps.run("recreate", r) })
		}
	case key.Matches(k, m.keys.Shell):
		if r := m.selectedReplica(); r != "" {
			return m, m.deps.shell(r)
		}
	}
	return m, nil
}

func (m viewModel) ask(prompt string, then func(m *viewModel, input string) tea.Cmd) (tea.Model, tea.Cmd) {
	m.prompt, m.input, m.onInput = prompt, "", then
	return m, nil
}

// confirm asks question, and does then on a y (any other key: nothing), as
// k9s asks before an action that stops replicas.
func (m viewModel) confirm(question string, then func(m *viewModel) tea.Cmd) (tea.Model, tea.Cmd) {
	m.prompt, m.input, m.yesNo = question+" (y/n) ", "", true
	m.onInput = func(m *viewModel, v string) tea.Cmd {
		if v == "y" {
			return then(m)
		}
		m.outcomes = append(m.outcomes, question+" no")
		return nil
	}
	return m, nil
}

func (m *viewModel) move(d int) {
	if m.set == "" {
		m.cursor += d
	} else {
		m.rcursor += d
	}
	m.clamp()
}

func (m viewModel) visibleSets() []SetRow {
	var out []SetRow
	for _, r := range m.snap.Sets {
		if strings.Contains(r.Name, m.filter) {
			out = append(out, r)
		}
	}
	return out
}

func (m viewModel) selectedSet() string {
	if m.set != "" {
		return m.set
	}
	sets := m.visibleSets()
	if m.cursor < len(sets) {
		return sets[m.cursor].Name
	}
	return ""
}

func (m viewModel) replicaRows() []ReplicaRow {
	d, ok := m.snap.Detail[m.set]
	if m.set == "" || !ok {
		return nil
	}
	var out []ReplicaRow
	for _, r := range ReplicaRows(d.Status, d.State, m.snap.At) {
		if strings.Contains(r.Name, m.filter) {
			out = append(out, r)
		}
	}
	return out
}

func (m viewModel) selectedReplica() string {
	rows := m.replicaRows()
	if m.rcursor < len(rows) {
		return rows[m.rcursor].Name
	}
	return ""
}

var (
	titleStyle    = lipgloss.NewStyle().Bold(true)
	selectedStyle = lipgloss.NewStyle().Reverse(true)
	dimStyle      = lipgloss.NewStyle().Faint(true)
)

func (m viewModel) View() tea.View {
	v := tea.NewView(m.render(time.Now()))
	v.AltScreen = true
	return v
}

// render is the screen at now; tests compare it, without styles, to golden text.
func (m viewModel) render(now time.Time) string {
	var b strings.Builder
	title := "ostset view: sets"
	if m.set != "" {
		title = "ostset view: " + m.set
	}
	b.WriteString(titleStyle.Render(title))
	if m.snap.Daemon.Running {
		fmt.Fprintf(&b, "  (daemon pid %d keeps the sets converged)\n", m.snap.Daemon.PID)
	} else {
		b.WriteString("  " + dimStyle.Render("no daemon runs: nothing heals while you watch, only the actions you take here") + "\n")
	}
	if m.filter != "" || m.filtering {
		fmt.Fprintf(&b, "filter: %s\n", m.filter)
	}
	b.WriteString("\n")
	switch {
	case m.showHelp:
		b.WriteString(m.help.FullHelpView(m.keys.FullHelp()) + "\n")
		return b.String()
	case !m.loaded:
		b.WriteString("reading the sets…\n")
	case m.set == "":
		m.renderSets(&b, now)
	default:
		m.renderReplicas(&b, now)
	}
	if m.prompt != "" {
		fmt.Fprintf(&b, "\n%s%s\n", m.prompt, m.input)
	}
	if len(m.outcomes) > 0 {
		b.WriteString("\n" + titleStyle.Render("actions") + "\n")
		for _, l := range m.outcomes {
			b.WriteString("  " + l + "\n")
		}
	}
	b.WriteString("\n" + m.help.ShortHelpView(m.keys.ShortHelp()))
	return b.String()
}

func (m viewModel) renderSets(b *strings.Builder, now time.Time) {
	sets := m.visibleSets()
	if len(sets) == 0 {
		b.WriteString("No sets found.\n")
		return
	}
	rows := [][]string{{"NAME", "READY", "UPDATED", "AVAILABLE", "CURRENT", "UPDATE", "POLICY", "ROLLOUT", "AGE"}}
	for _, r := range sets {
		policy := "-"
		if d, ok := m.snap.Detail[r.Name]; ok {
			policy = d.State.Spec.PodManagementPolicy + "/" + d.State.Spec.UpdateStrategy.Type
			if d.State.Paused {
				policy += " (paused)"
			}
		}
		rows = append(rows, []string{r.Name, fmt.Sprintf("%d/%d", r.ReadyReplicas, r.Replicas),
			strconv.Itoa(r.UpdatedReplicas), strconv.Itoa(r.AvailableReplicas), orDefault(r.CurrentRevision, "-"),
			orDefault(r.UpdateRevision, "-"), policy, bar(r.UpdatedReplicas, r.UpdatedReplicas, r.Replicas, 10), present.Age(r.Created, now)}) // the rollout: updated of desired
	}
	writeTable(b, rows, m.cursor)
}

func (m viewModel) renderReplicas(b *strings.Builder, now time.Time) {
	d := m.snap.Detail[m.set]
	rows := [][]string{{"", "NAME", "STATE", "HEALTH", "READY", "REVISION", "RESTARTS", "AGE", "CPU", "MEM", "PORTS", "VOLUMES", "REASON"}}
	partition := d.State.Spec.Partition()
	var marks []int
	for i, r := range m.replicaRows() {
		mark := " "
		if r.Revision == d.Status.UpdateRevision && r.Revision != "-" {
			mark = "*" // at the update revision
		}
		if i > 0 && r.Ordinal == partition && partition > d.State.Spec.FirstOrdinal() {
			marks = append(marks, i)
		}
		restarts := "-"
		for _, c := range d.Status.Containers {
			if c.Name == r.Name && (c.NotReady != nil || c.Restarts > 0) {
				restarts = strconv.Itoa(Restarts(c))
			}
		}
		var vols []string
		for _, claim := range d.State.Spec.VolumeClaimTemplates {
			vols = append(vols, claim.Name+"-"+r.Name)
		}
		cpu, mem := "-", "-"
		if u, ok := m.use[r.Name]; ok {
			cpu, mem = u.cpu, u.mem
		}
		rows = append(rows, []string{mark, r.Name, r.State, r.Health, r.Ready, r.Revision, restarts, r.Age(now), cpu, mem, r.Ports,
			orDefault(strings.Join(vols, ","), "-"), r.Reason})
	}
	if len(rows) == 1 {
		fmt.Fprintf(b, "No replicas: %s has replicas: 0.\n", m.set)
	} else {
		writeTableWithLine(b, rows, m.rcursor, marks, fmt.Sprintf("partition %d: ordinals below keep revision %s", partition, orDefault(d.Status.CurrentRevision, "-")))
		b.WriteString(dimStyle.Render("* at the update revision "+d.Status.UpdateRevision) + "\n")
	}
	b.WriteString("\n" + titleStyle.Render("events") + "\n")
	for _, e := range d.Events[max(0, len(d.Events)-6):] {
		fmt.Fprintf(b, "  %s %s\n", e.Time.Local().Format(time.TimeOnly), e.Message)
	}
	if m.logsFor != "" {
		b.WriteString("\n" + titleStyle.Render("logs of "+m.logsFor) + "\n")
		for _, l := range m.logLines {
			b.WriteString("  " + l + "\n")
		}
	}
}

// writeTable writes rows (the first is the header) aligned, the row at
// selected (0-based, after the header) highlighted.
func writeTable(b *strings.Builder, rows [][]string, selected int) {
	writeTableWithLine(b, rows, selected, nil, "")
}

// writeTableWithLine also draws a line, saying line, above each row in before.
func writeTableWithLine(b *strings.Builder, rows [][]string, selected int, before []int, line string) {
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], lipgloss.Width(c))
		}
	}
	for n, r := range rows {
		if n > 0 && containsInt(before, n-1) {
			b.WriteString("  ── " + line + " ──\n")
		}
		var l strings.Builder
		for i, c := range r {
			l.WriteString(c)
			if i < len(r)-1 {
				l.WriteString(strings.Repeat(" ", widths[i]-lipgloss.Width(c)+2))
			}
		}
		text := strings.TrimRight(l.String(), " ")
		if n > 0 && n-1 == selected {
			text = selectedStyle.Render(text)
		}
		b.WriteString(text + "\n")
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

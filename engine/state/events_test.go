package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// appendEvents appends n events "<prefix> <i>" to set web, each long enough that
// 2*EventLogLimit of them pass TrimEvents' size check.
func appendEvents(t testing.TB, s Store, prefix string, n int) {
	t.Helper()
	for i := range n {
		if err := s.AppendEvent(Event{Time: t0, Set: "web", Message: fmt.Sprintf("%s %d with some text to pass the size check", prefix, i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func messages(events []Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, strings.TrimSuffix(e.Message, " with some text to pass the size check"))
	}
	return out
}

// seqs returns the "seq" of every line of the set's log file, failing on a line
// without one.
func seqs(t *testing.T, s Store, name string) []int64 {
	t.Helper()
	data, err := os.ReadFile(s.eventFile(name))
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for line := range bytes.Lines(data) {
		var l struct {
			Seq int64 `json:"seq"`
		}
		if err := json.Unmarshal(line, &l); err != nil || l.Seq <= 0 {
			t.Fatalf("log line without a sequence number (%v): %q", err, line)
		}
		out = append(out, l.Seq)
	}
	return out
}

func setEventLogStep(t *testing.T, fn func(step string)) {
	eventLogStep = fn
	t.Cleanup(func() { eventLogStep = nil })
}

// The event log keeps the newest events when trimmed, and appends that race with
// a trim are not lost.
func TestEventLogTrim(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "event", 3*EventLogLimit)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := s.TrimEvents("web"); err != nil {
			t.Error(err)
		}
	})
	for i := range 50 {
		wg.Go(func() {
			if err := s.AppendEvent(Event{Time: t0, Set: "web", Message: fmt.Sprintf("late %d", i)}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	events, _, err := s.Events("web", 0)
	if err != nil {
		t.Fatal(err)
	}
	late := 0
	for _, e := range events {
		if strings.HasPrefix(e.Message, "late ") {
			late++
		}
	}
	if late != 50 {
		t.Errorf("%d of 50 appends racing the trim survived", late)
	}
	if n := len(events); n < EventLogLimit || n > EventLogLimit+50 {
		t.Errorf("%d events after trim, want %d to %d", n, EventLogLimit, EventLogLimit+50)
	}
	if last := events[len(events)-1].Message; !strings.HasPrefix(last, "late ") && last != fmt.Sprintf("event %d with some text to pass the size check", 3*EventLogLimit-1) {
		t.Errorf("newest event lost: %q", last)
	}
	if got := seqs(t, s, "web"); got[len(got)-1] != 3*EventLogLimit+50 {
		t.Errorf("newest sequence number %d, want %d", got[len(got)-1], 3*EventLogLimit+50)
	}
}

// A follower that passes back the number Events returned sees each event once
// across a trim: no repeats of the kept ones, none of the unread ones missed.
func TestEventLogFollowAcrossTrim(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "old", 2*EventLogLimit)
	events, seen, err := s.Events("web", 0)
	if err != nil || len(events) != 2*EventLogLimit {
		t.Fatalf("first read: %d events, %v", len(events), err)
	}
	appendEvents(t, s, "unread", 1) // the log now passes twice the limit
	if err := s.TrimEvents("web"); err != nil {
		t.Fatal(err)
	}
	if events, _, _ := s.Events("web", 0); len(events) != EventLogLimit {
		t.Fatalf("%d events after the trim, want %d", len(events), EventLogLimit)
	}
	appendEvents(t, s, "new", 2)
	events, seen, err = s.Events("web", seen)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := messages(events), []string{"unread 0", "new 0", "new 1"}; !slices.Equal(got, want) {
		t.Errorf("follower after a trim read %d events, the first %q; want %q", len(got), got[:min(3, len(got))], want)
	}
	if events, _, err := s.Events("web", seen); err != nil || len(events) != 0 {
		t.Errorf("nothing new: %d events, %v", len(events), err)
	}
}

// An appender that opened the log before a trim renamed a new file over it, and
// got the lock after, writes its event to the new log, not to the old file.
func TestEventLogAppendWaitingThroughTrim(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "old", 2*EventLogLimit+1)
	var opens atomic.Int32
	opened, resume := make(chan struct{}), make(chan struct{})
	setEventLogStep(t, func(step string) {
		if step == "opened" && opens.Add(1) == 1 {
			close(opened)
			<-resume
		}
	})
	errc := make(chan error, 1)
	go func() { errc <- s.AppendEvent(Event{Time: t0, Set: "web", Message: "waited"}) }()
	<-opened // the appender has the log open and is about to lock it
	if err := s.TrimEvents("web"); err != nil {
		t.Fatal(err)
	}
	close(resume)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	events, _, err := s.Events("web", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != EventLogLimit+1 || events[len(events)-1].Message != "waited" {
		t.Errorf("%d events after the trim, the last %q; want %d ending with the waiting append", len(events), events[len(events)-1].Message, EventLogLimit+1)
	}
	if got := seqs(t, s, "web"); got[len(got)-1] != 2*EventLogLimit+2 {
		t.Errorf("waiting append numbered %d, want %d", got[len(got)-1], 2*EventLogLimit+2)
	}
}

// A delete during a trim waits for it: the trimmed log is not renamed over the
// path after the delete.
func TestEventLogDeleteDuringTrim(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "old", 2*EventLogLimit+1)
	deleted := make(chan error, 1)
	waiting := make(chan struct{}, 1)
	var deleting atomic.Bool
	setEventLogStep(t, func(step string) {
		switch {
		case step == "temp written": // the trim holds the lock
			deleting.Store(true)
			go func() { deleted <- s.DeleteEvents("web") }()
			select {
			case <-waiting: // the delete is about to wait for the lock
			case err := <-deleted:
				deleted <- err // it did not wait
			}
		case step == "opened" && deleting.Load():
			select {
			case waiting <- struct{}{}:
			default:
			}
		}
	})
	if err := s.TrimEvents("web"); err != nil {
		t.Fatal(err)
	}
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.eventFile("web")); err == nil {
		t.Error("the log is back after a delete that raced a trim")
	}
}

// Goroutines and processes appending while they trim lose nothing, the log stays
// numbered without gaps, and a follower meanwhile sees every kept event once.
func TestEventLogConcurrentAppendsAndTrims(t *testing.T) {
	const writers, perWriter, prefill = 3, 200, 950
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "pre", prefill)

	var followed []string
	stop, followerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(followerDone)
		var seen int64
		for last := false; !last; {
			select {
			case <-stop:
				last = true // one more read after the writers finished
			case <-time.After(time.Millisecond): // a follower polls; ostset events -f every 300ms
			}
			events, next, err := s.Events("web", seen)
			if err != nil {
				t.Error(err)
				return
			}
			seen = next
			followed = append(followed, messages(events)...)
		}
	}()

	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				if err := s.AppendEvent(Event{Time: t0, Set: "web", Message: fmt.Sprintf("g%d %d with some text to pass the size check", w, i)}); err != nil {
					t.Error(err)
					return
				}
				if err := s.TrimEvents("web"); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			out, err := helperProcess("append", s.Dir, fmt.Sprintf("p%d", w), strconv.Itoa(perWriter)).CombinedOutput()
			if err != nil {
				t.Errorf("appending process p%d: %v\n%s", w, err, out)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-followerDone

	total := int64(prefill + 2*writers*perWriter)
	got := seqs(t, s, "web")
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("sequence numbers jump from %d to %d", got[i-1], got[i])
		}
	}
	if got[len(got)-1] != total {
		t.Errorf("newest sequence number %d, want %d: appends were lost", got[len(got)-1], total)
	}
	events, _, err := s.Events("web", 0)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(events); n < EventLogLimit || n > 2*EventLogLimit {
		t.Errorf("%d events kept, want %d to %d", n, EventLogLimit, 2*EventLogLimit)
	}
	// Each writer's kept events are the newest ones it wrote, without a hole.
	next := map[string]int{}
	for _, m := range messages(events) {
		w, i := splitMessage(t, m)
		if n, ok := next[w]; ok && i != n {
			t.Errorf("log holds %s %d after %s %d", w, i, w, n-1)
		}
		next[w] = i + 1
	}
	for w, n := range next {
		if w != "pre" && n != perWriter {
			t.Errorf("newest event of %s: %d, want %d", w, n-1, perWriter-1)
		}
	}
	// The follower saw no event twice, each writer's in order, and every kept one.
	seen := map[string]bool{}
	last := map[string]int{}
	for _, m := range followed {
		if seen[m] {
			t.Fatalf("follower saw %q twice", m)
		}
		seen[m] = true
		w, i := splitMessage(t, m)
		if n, ok := last[w]; ok && i <= n {
			t.Fatalf("follower saw %s %d after %s %d", w, i, w, n)
		}
		last[w] = i
	}
	for _, m := range messages(events) {
		if !seen[m] {
			t.Errorf("follower missed %q, which the log kept", m)
		}
	}
}

func splitMessage(t *testing.T, m string) (string, int) {
	w, num, _ := strings.Cut(m, " ")
	i, err := strconv.Atoi(num)
	if err != nil {
		t.Fatalf("message %q", m)
	}
	return w, i
}

// A process killed at any step of a trim leaves the old or the trimmed log
// whole, and the next append and trim work.
func TestEventLogTrimKilled(t *testing.T) {
	for _, c := range []struct {
		step    string
		trimmed bool // the kill leaves the trimmed log, else the old one
	}{
		{"opened", false},
		{"temp created", false},
		{"temp written", false},
		{"renamed", true},
	} {
		t.Run(strings.ReplaceAll(c.step, " ", "-"), func(t *testing.T) {
			s := Store{Dir: t.TempDir()}
			appendEvents(t, s, "old", 2*EventLogLimit+1)
			before, err := os.ReadFile(s.eventFile("web"))
			if err != nil {
				t.Fatal(err)
			}
			err = helperProcess("trim-killed", s.Dir, c.step).Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || !exit.Sys().(syscall.WaitStatus).Signaled() {
				t.Fatalf("trimming process was not killed at %q: %v", c.step, err)
			}
			after, err := os.ReadFile(s.eventFile("web"))
			if err != nil {
				t.Fatal(err)
			}
			want, which := before, "old"
			if c.trimmed {
				lines := slices.Collect(bytes.Lines(before))
				want, which = bytes.Join(lines[len(lines)-EventLogLimit:], nil), "trimmed"
			}
			if !bytes.Equal(after, want) {
				t.Fatalf("log after a kill at %q: %d bytes, want the %s log (%d bytes)", c.step, len(after), which, len(want))
			}
			appendEvents(t, s, "new", 1)
			if err := s.TrimEvents("web"); err != nil {
				t.Fatal(err)
			}
			events, _, err := s.Events("web", 0)
			if err != nil {
				t.Fatal(err)
			}
			wantN := EventLogLimit // the old log plus one, trimmed
			if c.trimmed {
				wantN = EventLogLimit + 1 // the trimmed log plus one
			}
			if got := messages(events); len(got) != wantN || got[len(got)-1] != "new 0" {
				t.Errorf("after a kill at %q, append and trim: %d events ending %q, want %d ending \"new 0\"", c.step, len(got), got[len(got)-1], wantN)
			}
			if _, err := os.Stat(s.eventFile("web") + ".tmp"); err == nil {
				t.Errorf("temporary file left after a kill at %q and a trim", c.step)
			}
		})
	}
}

// helperProcess runs TestEventLogHelperProcess in a new process of this test
// binary.
func helperProcess(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestEventLogHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OSTSET_EVENTLOG_HELPER="+strings.Join(args, "\t"),
		"GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0") // under -race a process otherwise lingers 1s at exit
	return cmd
}

// TestEventLogHelperProcess is another process for the tests above:
// "append DIR WRITER N" appends N events, each followed by a trim as a pass does;
// "trim-killed DIR STEP" trims and kills itself at the step.
func TestEventLogHelperProcess(t *testing.T) {
	env := os.Getenv("OSTSET_EVENTLOG_HELPER")
	if env == "" {
		return
	}
	args := strings.Split(env, "\t")
	s := Store{Dir: args[1]}
	switch args[0] {
	case "append":
		n, _ := strconv.Atoi(args[3])
		for i := range n {
			if err := s.AppendEvent(Event{Time: t0, Set: "web", Message: fmt.Sprintf("%s %d with some text to pass the size check", args[2], i)}); err != nil {
				t.Fatal(err)
			}
			if err := s.TrimEvents("web"); err != nil {
				t.Fatal(err)
			}
		}
	case "trim-killed":
		eventLogStep = func(step string) {
			if step == args[2] {
				if p, err := os.FindProcess(os.Getpid()); err == nil {
					_ = p.Kill() // SIGKILL; TerminateProcess on Windows
				}
				select {} // the signal is on its way
			}
		}
		if err := s.TrimEvents("web"); err != nil {
			t.Fatal(err)
		}
		t.Fatalf("trim passed step %q without it", args[2])
	}
}

// Lines written before the log was numbered are read, numbered one above the
// line before them; appends continue from there, and a trim writes the numbers
// into the lines it keeps so that a follower's position stays valid.
func TestEventLogUnnumberedLines(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	var legacy bytes.Buffer
	for i := range 2 * EventLogLimit {
		line, _ := json.Marshal(Event{Time: t0, Set: "web", Message: fmt.Sprintf("legacy %d with some text to pass the size check", i)})
		legacy.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(filepath.Dir(s.eventFile("web")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.eventFile("web"), legacy.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	events, seen, err := s.Events("web", 0)
	if err != nil || len(events) != 2*EventLogLimit || seen != 2*EventLogLimit {
		t.Fatalf("unnumbered log: %d events, last number %d, %v", len(events), seen, err)
	}
	if events, _, _ := s.Events("web", 700); len(events) != 2*EventLogLimit-700 || messages(events)[0] != "legacy 700" {
		t.Errorf("unnumbered log after 700: %d events from %q", len(events), messages(events)[0])
	}
	appendEvents(t, s, "new", 1)
	events, seen, err = s.Events("web", seen)
	if err != nil || !slices.Equal(messages(events), []string{"new 0"}) || seen != 2*EventLogLimit+1 {
		t.Fatalf("after an append: %q, last number %d, %v", messages(events), seen, err)
	}
	if err := s.TrimEvents("web"); err != nil {
		t.Fatal(err)
	}
	got := seqs(t, s, "web") // fails on a line left unnumbered
	if len(got) != EventLogLimit || got[0] != EventLogLimit+2 || got[len(got)-1] != 2*EventLogLimit+1 {
		t.Errorf("after the trim: %d lines numbered %d to %d", len(got), got[0], got[len(got)-1])
	}
	if events, _, _ := s.Events("web", 700); len(events) != 2*EventLogLimit+1-700 || messages(events)[0] != "legacy 700" {
		t.Errorf("a follower at 700 after the trim: %d events from %q", len(events), messages(events)[0])
	}
}

// An unnumbered line among numbered ones (an earlier ostset still appending)
// counts as one above the line before it, and a line cut short by a writer's
// death is skipped and does not swallow the next one.
func TestEventLogMixedAndDamagedLines(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "a", 2)
	f, err := os.OpenFile(s.eventFile("web"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(Event{Time: t0, Set: "web", Message: "unnumbered"})
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(`{"seq":4,"time":"2026-11-21T12:00:00Z","set":"web","mess`)); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	events, seen, err := s.Events("web", 0)
	if err != nil || !slices.Equal(messages(events), []string{"a 0", "a 1", "unnumbered"}) || seen != 3 {
		t.Fatalf("read %q, last number %d, %v", messages(events), seen, err)
	}
	appendEvents(t, s, "b", 1)
	events, seen, err = s.Events("web", seen)
	if err != nil || !slices.Equal(messages(events), []string{"b 0"}) || seen != 4 {
		t.Errorf("after an append: %q, last number %d, %v", messages(events), seen, err)
	}
}

// A follower whose set was deleted and created again reads the new log from its
// start rather than waiting for it to reach the old number.
func TestEventLogStartedAgain(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	appendEvents(t, s, "old", 10)
	_, seen, _ := s.Events("web", 0)
	if err := s.DeleteEvents("web"); err != nil {
		t.Fatal(err)
	}
	if events, next, err := s.Events("web", seen); err != nil || len(events) != 0 || next != 0 {
		t.Errorf("deleted log: %d events, next %d, %v", len(events), next, err)
	}
	appendEvents(t, s, "new", 2)
	events, next, err := s.Events("web", seen)
	if err != nil || !slices.Equal(messages(events), []string{"new 0", "new 1"}) || next != 2 {
		t.Errorf("log started again: %q, next %d, %v", messages(events), next, err)
	}
}

// Reading backwards in blocks finds every line whatever the block boundaries.
func TestLinesBackward(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 3000 {
		line := fmt.Sprintf("%d %s\n", i, strings.Repeat("x", i%97))
		b.WriteString(line)
		want = append(want, line)
	}
	b.WriteString("unterminated")
	data := b.String()
	var got []string
	err := linesBackward(strings.NewReader(data), int64(len(data)), func(line []byte) bool {
		got = append(got, string(line))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(got)
	if !slices.Equal(got, want) {
		t.Errorf("read %d lines backwards, want %d", len(got), len(want))
	}
	if err := linesBackward(strings.NewReader("no newline"), 10, func([]byte) bool { t.Error("a line without newline"); return true }); err != nil {
		t.Fatal(err)
	}
}

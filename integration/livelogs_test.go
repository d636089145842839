//go:build integration

package integration

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const tickerSpec = `
name: {{SET}}
replicas: 1
network: {{NET}}
terminationGracePeriodSeconds: 1
template:
  image: {{IMAGE}}
  command: ["sh", "-c", "while true; do date +%s; sleep 1; done"]
`

// ostset view under tmux on the real engine: the logs pane follows the
// selected replica's output as it is written, with no change to the set.
func TestLwViewFollowsLogs(t *testing.T) {
	t.Parallel()
	requireTool(t, "tmux", "tmux")
	h := newHarnessPrefix(t, "lw")
	h.mustOstset("up", "-f", h.writeSpec(tickerSpec, "ostset-test/debian:bookworm"))
	session, tmux := viewInTmux(t, h)
	tick := regexp.MustCompile(`(?m)^  (\d{10})\s*$`)
	last := func(screen string) int {
		if !strings.Contains(screen, "logs of "+h.name(0)) {
			return -1
		}
		m := tick.FindAllStringSubmatch(screen, -1)
		if len(m) == 0 {
			return -1
		}
		n, _ := strconv.Atoi(m[len(m)-1][1])
		return n
	}
	await := func(what string, within time.Duration, ok func(n int) bool) int {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			screen := tmux("capture-pane", "-p", "-t", session)
			if n := last(screen); ok(n) {
				return n
			}
			if time.Now().After(deadline) {
				t.Fatalf("the view never showed %s:\n%s", what, screen)
			}
			time.Sleep(200 * time.Millisecond) // capture-pane reads a screen; there is no event to wait on
		}
	}
	first := await("a tick in the logs pane", 60*time.Second, func(n int) bool { return n >= 0 })
	// Nothing about the set changes from here on: only following the
	// stream shows the ticks that come, well before the view's 30 s resync
	// would read the set again.
	await("later ticks", 15*time.Second, func(n int) bool { return n >= first+3 })
}

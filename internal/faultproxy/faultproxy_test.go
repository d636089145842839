package faultproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeEngine is an upstream that answers a few Docker-like routes and counts
// the creates it performed.
type fakeEngine struct {
	creates atomic.Int32
	events  chan string
}

func startFake(t *testing.T) (string, *fakeEngine) {
	t.Helper()
	dir := shortDir(t)
	sock := dir + "/up.sock"
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	fe := &fakeEngine{events: make(chan string, 10)}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1.41/containers/create", func(w http.ResponseWriter, r *http.Request) {
		fe.creates.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"Id":"0123456789abcdef0123456789abcdef","Warnings":[]}`+"\n")
	})
	mux.HandleFunc("GET /v1.41/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case e := <-fe.events:
				_, _ = io.WriteString(w, e+"\n")
				w.(http.Flusher).Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /v1.41/containers/{id}/attach", func(w http.ResponseWriter, r *http.Request) {
		c, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer func() { _ = c.Close() }()
		_, _ = bw.WriteString("HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n")
		_ = bw.Flush()
		_, _ = io.Copy(c, bw) // echo
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "OK")
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return sock, fe
}

// shortDir is a temporary directory with a path short enough for a socket.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func startProxy(t *testing.T) (*Proxy, *fakeEngine) {
	t.Helper()
	up, fe := startFake(t)
	p, err := Start("unix://"+up, shortDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p, fe
}

// client talks to the proxy with a new connection per request, so no
// transparent retry on a reused connection hides a fault.
func client(p *Proxy) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DisableKeepAlives: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", p.SocketPath())
		},
	}}
}

func create(c *http.Client) (*http.Response, error) {
	return c.Post("http://docker/v1.41/containers/create?name=web-1", "application/json", strings.NewReader(`{"Image":"x"}`))
}

func TestForwardsUnmatched(t *testing.T) {
	p, fe := startProxy(t)
	p.AddFault(Rule{Method: "POST", Path: "/containers/create", Query: "name=web-2", Action: Drop})
	resp, err := create(client(p))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusCreated || fe.creates.Load() != 1 {
		t.Fatalf("status %d, creates %d; want 201 and 1", resp.StatusCode, fe.creates.Load())
	}
	reqs := p.Requests()
	if len(reqs) != 1 || reqs[0].Path != "/containers/create" || reqs[0].Fault != nil || !strings.Contains(reqs[0].Query, "name=web-1") {
		t.Fatalf("requests %+v", reqs)
	}
	if n := p.Count("POST", "/containers/*"); n != 1 {
		t.Fatalf("Count = %d, want 1", n)
	}
}

func TestErrorAnswersDockerJSON(t *testing.T) {
	p, fe := startProxy(t)
	f := p.AddFault(Rule{Method: "POST", Path: "/containers/create", Action: Error, Status: 403, Message: "has active endpoints"})
	resp, err := create(client(p))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct{ Message string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 403 || resp.Header.Get("Content-Type") != "application/json" || body.Message != "has active endpoints" {
		t.Fatalf("got %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body.Message)
	}
	if fe.creates.Load() != 0 || f.Hits() != 1 {
		t.Fatalf("creates %d hits %d; want 0 and 1", fe.creates.Load(), f.Hits())
	}
}

func TestDropAndResetNeverReachTheEngine(t *testing.T) {
	for _, a := range []Action{Drop, Reset} {
		t.Run(a.String(), func(t *testing.T) {
			p, fe := startProxy(t)
			p.AddFault(Rule{Path: "/containers/create", Action: a})
			resp, err := create(client(p))
			if err == nil {
				_ = resp.Body.Close()
				t.Fatalf("got an answer %d, want a broken connection", resp.StatusCode)
			}
			if fe.creates.Load() != 0 {
				t.Fatalf("the engine saw %d creates", fe.creates.Load())
			}
		})
	}
}

func TestLoseAnswerPerformsTheRequest(t *testing.T) {
	p, fe := startProxy(t)
	f := p.AddFault(Rule{Method: "POST", Path: "/containers/create", Action: LoseAnswer, Times: 1})
	c := client(p)
	resp, err := create(c)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
	}
	if err == nil {
		t.Fatal("the answer arrived whole")
	}
	if fe.creates.Load() != 1 {
		t.Fatalf("the engine performed %d creates, want 1", fe.creates.Load())
	}
	// Times: 1 — the next create is forwarded.
	resp, err = create(c)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 201 || fe.creates.Load() != 2 || f.Hits() != 1 {
		t.Fatalf("status %d creates %d hits %d", resp.StatusCode, fe.creates.Load(), f.Hits())
	}
}

func TestDelay(t *testing.T) {
	p, _ := startProxy(t)
	p.AddFault(Rule{Path: "/_ping", Action: Forward, Delay: 200 * time.Millisecond})
	start := time.Now()
	resp, err := client(p).Get("http://docker/_ping")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("answered after %v, before the delay", d)
	}
}

func TestSetRulesReplacesAndRemoveFault(t *testing.T) {
	p, fe := startProxy(t)
	f := p.AddFault(Rule{Path: "/containers/create", Action: Error})
	p.RemoveFault(f)
	p.SetRules(Rule{Path: "/nothing", Action: Drop})
	resp, err := create(client(p))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 201 || fe.creates.Load() != 1 || f.Hits() != 0 {
		t.Fatalf("status %d creates %d hits %d", resp.StatusCode, fe.creates.Load(), f.Hits())
	}
}

func TestUpgradePassesThrough(t *testing.T) {
	p, _ := startProxy(t)
	c, err := net.Dial("unix", p.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, _ = io.WriteString(c, "POST /v1.41/containers/x/attach?stream=1 HTTP/1.1\r\nHost: docker\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %d", resp.StatusCode)
	}
	_, _ = io.WriteString(c, "hello\n")
	line, err := br.ReadString('\n')
	if err != nil || line != "hello\n" {
		t.Fatalf("echo %q %v", line, err)
	}
	// Cut closes a hijacked connection too.
	p.Cut()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadString('\n'); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after Cut: %v, want the connection closed", err)
	}
}

func TestCutClosesStreamsAndRefusesUntilRestore(t *testing.T) {
	p, fe := startProxy(t)
	c := client(p)
	resp, err := c.Get("http://docker/v1.41/events")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	br := bufio.NewReader(resp.Body)
	fe.events <- `{"status":"start"}`
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "start") {
		t.Fatalf("event %q %v", line, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := br.ReadString('\n')
		done <- err
	}()
	p.Cut()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the stream went on after Cut")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream was not closed by Cut")
	}
	if _, err := net.Dial("unix", p.SocketPath()); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial after Cut: %v, want connection refused", err)
	}
	p.Cut() // twice is harmless
	if err := p.Restore(); err != nil {
		t.Fatal(err)
	}
	r2, err := create(c)
	if err != nil {
		t.Fatal(err)
	}
	_ = r2.Body.Close()
	if r2.StatusCode != 201 {
		t.Fatalf("after Restore: %d", r2.StatusCode)
	}
}

func TestAPIPath(t *testing.T) {
	for in, want := range map[string]string{
		"/v1.41/containers/create": "/containers/create",
		"/v1/networks/x":           "/networks/x",
		"/_ping":                   "/_ping",
		"/containers/json":         "/containers/json",
		"/volumes/v1.41":           "/volumes/v1.41",
	} {
		if got := apiPath(in); got != want {
			t.Errorf("apiPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStartRejectsLongPathAndNonUnix(t *testing.T) {
	if _, err := Start("tcp://127.0.0.1:2375", shortDir(t)); err == nil {
		t.Error("a TCP upstream was accepted")
	}
	if _, err := Start("/var/run/docker.sock", "/tmp/"+strings.Repeat("x", 120)); err == nil || !strings.Contains(err.Error(), "107") {
		t.Errorf("long path: %v", err)
	}
}

// A request held by a Delay ends on Cut and never reaches the engine, even
// once its delay is over: a test that cuts the engine mid-create must not find
// that create performed minutes later.
func TestCutEndsAHeldRequest(t *testing.T) {
	p, fe := startProxy(t)
	delay := 300 * time.Millisecond
	f := p.AddFault(Rule{Method: "POST", Path: "/containers/create", Action: Forward, Delay: delay})
	done := make(chan error, 1)
	go func() {
		resp, err := create(client(p))
		if err == nil {
			_ = resp.Body.Close()
		}
		done <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for f.Hits() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the create never reached the proxy")
		}
		time.Sleep(time.Millisecond)
	}
	p.Cut()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the held create was answered after Cut")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held create did not end on Cut")
	}
	// Close waits for held requests: a create still held would be sent
	// once its delay is over, before Close returns.
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if n := fe.creates.Load(); n != 0 {
		t.Fatalf("the engine performed %d creates, want 0", n)
	}
}

// Package faultproxy is a test helper: an HTTP proxy in front of a Docker
// Engine socket that injects faults, so tests can run ostset against an engine
// that is slow, loses answers or goes away. No product code imports it.
//
// Usage:
//
//	p, err := faultproxy.Start("/var/run/docker.sock", dir) // listens on dir/docker.sock
//	defer p.Close()
//	cmd.Env = append(os.Environ(), "DOCKER_HOST="+p.Host())
//	f := p.AddFault(faultproxy.Rule{Method: "POST", Path: "/containers/create", Action: faultproxy.LoseAnswer, Times: 1})
//	... f.Hits() ...
//	p.Cut()     // every connection closed (streams too), new ones refused
//	p.Restore() // accepting again
//
// Start(upstream, dir) listens on a Unix socket dir/docker.sock (keep dir
// short: a Unix socket path has at most 107 bytes, so prefer os.MkdirTemp("",
// ...) to t.TempDir() for long test names). upstream is a socket path or a
// unix:// address. Host returns the unix:// address to put in DOCKER_HOST;
// SocketPath the bare path.
//
// A Rule matches a request by Method ("" for any), Path and Query. Path is a
// path.Match pattern against the request path with the API version prefix
// (/v1.41) removed: "/containers/create", "/containers/*/start",
// "/networks/*". Query, if set, must occur in the URL-decoded query string
// ("name=web-1"). Rules are checked in the order they were added; the first
// one that matches and has not used up its Times (0 = unlimited) applies, and
// requests that match no rule are forwarded unchanged, streams and
// connection upgrades (attach, exec) included. What a matching rule does is
// its Action, after its Delay:
//
//   - Forward: forward the request (with Delay alone, a slow engine).
//   - Drop: close the connection without an answer; the engine never sees
//     the request.
//   - Reset: send the first bytes of a status line and close the connection
//     at once; the engine never sees the request. (A Unix socket has no TCP
//     reset; the client sees a connection broken mid-answer rather than a
//     clean close before any byte.)
//   - Error: answer Status (500 if 0) with Docker's JSON error body
//     {"message": Message}; the engine never sees the request.
//   - LoseAnswer: forward the request, read the engine's whole answer, then
//     send only the first half of it and close the connection: the change
//     happened, the client cannot know.
//
// AddFault returns a *Fault whose Hits counts the requests it applied to;
// RemoveFault and SetRules (replace all) change the rules at any time.
// Requests lists every request the proxy received, faulted or not, and Count
// counts those matching a method and path pattern.
//
// Cut closes every connection, including hijacked and streaming ones
// (/events, logs, attach), cancels requests in flight and refuses new
// connections (connection refused) until Restore. A request held by a rule's
// Delay ends there: its connection is closed and it never reaches the engine,
// as a request sent to an engine that went away never does. Close stops the
// proxy for good, once every held request has ended, and removes its socket.
package faultproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// Action is what a matching rule does with a request.
type Action int

const (
	// Forward forwards the request, after the rule's Delay.
	Forward Action = iota
	// Drop closes the connection without an answer.
	Drop
	// Reset breaks the connection after a partial status line.
	Reset
	// Error answers Status with Docker's JSON error body.
	Error
	// LoseAnswer forwards the request and closes the connection halfway
	// through the engine's answer.
	LoseAnswer
)

func (a Action) String() string {
	switch a {
	case Forward:
		return "forward"
	case Drop:
		return "drop"
	case Reset:
		return "reset"
	case Error:
		return "error"
	case LoseAnswer:
		return "lose-answer"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Rule selects requests and says what to do with them.
type Rule struct {
	Method string        // "" matches any method
	Path   string        // path.Match pattern on the path without /vX.Y; "" matches any
	Query  string        // substring of the decoded query; "" matches any
	Action Action        // what to do after Delay
	Delay  time.Duration // wait before acting (the request's context cancels the wait)
	Status int           // for Error; 500 if 0
	// Message is the error message for Error; "faultproxy: injected error" if empty.
	Message string
	// Times is how many requests the rule applies to; 0 means every one.
	Times int
}

// Fault is a rule added to a proxy.
type Fault struct {
	rule Rule
	mu   sync.Mutex
	hits int
}

// Hits is how many requests the fault has applied to.
func (f *Fault) Hits() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits
}

// take counts a hit if the fault still applies and reports whether it did.
func (f *Fault) take() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rule.Times > 0 && f.hits >= f.rule.Times {
		return false
	}
	f.hits++
	return true
}

// Request is one request the proxy received.
type Request struct {
	Method string
	Path   string // without the API version prefix
	Query  string // decoded
	Fault  *Fault // the fault that applied, nil if forwarded unchanged
}

// Proxy is a fault-injecting proxy in front of a Docker Engine socket.
type Proxy struct {
	sock     string
	upstream string
	srv      *http.Server
	rp       *httputil.ReverseProxy
	tr       *http.Transport

	mu     sync.Mutex
	ln     net.Listener
	conns  map[*conn]struct{}
	faults []*Fault
	log    []Request
	closed bool
	served sync.WaitGroup
	// cut is done when the listener of this generation is cut: requests
	// it accepted are cancelled then, held ones included.
	cut     context.Context
	cutDone context.CancelFunc
	// faulted counts the requests a fault applies to that have not ended;
	// Close waits for them.
	faulted sync.WaitGroup
}

// Start listens on dir/docker.sock and forwards to upstream (a socket path or
// unix:// address).
func Start(upstream, dir string) (*Proxy, error) {
	up := strings.TrimPrefix(upstream, "unix://")
	if up == "" || strings.Contains(up, "://") {
		return nil, fmt.Errorf("faultproxy: upstream %q is not a Unix socket", upstream)
	}
	sock := filepath.Join(dir, "docker.sock")
	if len(sock) > 107 {
		return nil, fmt.Errorf("faultproxy: socket path %s is longer than a Unix socket allows (107 bytes); use a shorter dir", sock)
	}
	p := &Proxy{sock: sock, upstream: up, conns: map[*conn]struct{}{}}
	p.tr = &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", up)
		},
		DisableCompression: true,
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme = "http"
			r.Out.URL.Host = "docker"
			r.Out.Host = r.In.Host
		},
		Transport:     p.tr,
		FlushInterval: -1, // streams (events, logs) pass through at once
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			writeError(w, http.StatusBadGateway, "faultproxy: upstream: "+err.Error())
		},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: 30 * time.Second}
	if err := p.listen(); err != nil {
		return nil, err
	}
	return p, nil
}

// Host is the address for DOCKER_HOST: unix://<dir>/docker.sock.
func (p *Proxy) Host() string { return "unix://" + p.sock }

// URL is Host, for those who look for it under that name.
func (p *Proxy) URL() string { return p.Host() }

// SocketPath is the path of the proxy's socket.
func (p *Proxy) SocketPath() string { return p.sock }

func (p *Proxy) listen() error {
	_ = os.Remove(p.sock)
	ln, err := net.Listen("unix", p.sock)
	if err != nil {
		return fmt.Errorf("faultproxy: listen: %w", err)
	}
	// Keep the socket file when the listener closes, so a cut proxy refuses
	// connections as a stopped engine does instead of vanishing.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	tl := &listener{Listener: ln, p: p}
	p.ln = tl
	p.cut, p.cutDone = context.WithCancel(context.Background())
	p.served.Add(1)
	go func() {
		defer p.served.Done()
		_ = p.srv.Serve(tl)
	}()
	return nil
}

// AddFault adds a rule after the existing ones.
func (p *Proxy) AddFault(r Rule) *Fault {
	f := &Fault{rule: r}
	p.mu.Lock()
	p.faults = append(p.faults, f)
	p.mu.Unlock()
	return f
}

// RemoveFault removes a fault; requests it would have matched are forwarded
// (or matched by later rules).
func (p *Proxy) RemoveFault(f *Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, g := range p.faults {
		if g == f {
			p.faults = append(p.faults[:i:i], p.faults[i+1:]...)
			return
		}
	}
}

// SetRules replaces every rule; SetRules() clears them.
func (p *Proxy) SetRules(rules ...Rule) []*Fault {
	fs := make([]*Fault, len(rules))
	for i, r := range rules {
		fs[i] = &Fault{rule: r}
	}
	p.mu.Lock()
	p.faults = fs
	p.mu.Unlock()
	return fs
}

// Requests returns the requests received so far, in order.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// Count counts the requests received whose method ("" for any) and path
// (a pattern as in Rule.Path) match.
func (p *Proxy) Count(method, pattern string) int {
	n := 0
	for _, r := range p.Requests() {
		if matchMethodPath(method, pattern, r.Method, r.Path) {
			n++
		}
	}
	return n
}

// Cut closes every connection, streams included, and refuses new ones until
// Restore. Cutting a cut proxy does nothing.
func (p *Proxy) Cut() {
	p.mu.Lock()
	ln := p.ln
	p.ln = nil
	conns := p.conns
	p.conns = map[*conn]struct{}{}
	if ln != nil {
		p.cutDone()
	}
	p.mu.Unlock()
	if ln != nil {
		_ = ln.Close()
	}
	for c := range conns {
		_ = c.Conn.Close()
	}
	p.served.Wait()
	p.tr.CloseIdleConnections()
}

// Restore accepts connections again after Cut. Restoring a proxy that is not
// cut does nothing.
func (p *Proxy) Restore() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return errors.New("faultproxy: closed")
	}
	if p.ln != nil {
		return nil
	}
	return p.listen()
}

// Close cuts every connection, waits for the requests held by a fault to
// end, stops the proxy and removes its socket.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.Cut()
	p.faulted.Wait()
	_ = p.srv.Close()
	if err := os.Remove(p.sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("faultproxy: %w", err)
	}
	return nil
}

var versionPrefix = regexp.MustCompile(`^/v[0-9]+(\.[0-9]+)?/`)

// apiPath removes the API version prefix from a request path.
func apiPath(p string) string {
	if loc := versionPrefix.FindStringIndex(p); loc != nil {
		return p[loc[1]-1:]
	}
	return p
}

func matchMethodPath(method, pattern, gotMethod, gotPath string) bool {
	if method != "" && !strings.EqualFold(method, gotMethod) {
		return false
	}
	if pattern == "" {
		return true
	}
	ok, err := path.Match(pattern, gotPath)
	return err == nil && ok
}

func (r Rule) matches(req Request) bool {
	if !matchMethodPath(r.Method, r.Path, req.Method, req.Path) {
		return false
	}
	return r.Query == "" || strings.Contains(req.Query, r.Query)
}

func (p *Proxy) serve(w http.ResponseWriter, req *http.Request) {
	rec := Request{Method: req.Method, Path: apiPath(req.URL.Path)}
	if q, err := url.QueryUnescape(req.URL.RawQuery); err == nil {
		rec.Query = q
	} else {
		rec.Query = req.URL.RawQuery
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		hijackClose(w, nil)
		return
	}
	for _, f := range p.faults {
		if f.rule.matches(rec) && f.take() {
			rec.Fault = f
			break
		}
	}
	p.log = append(p.log, rec)
	cut := p.cut
	if rec.Fault != nil {
		p.faulted.Add(1)
		defer p.faulted.Done()
	}
	p.mu.Unlock()

	// The server cancels a request's context when its client goes away,
	// but not before the handler has read the body: a POST held by a Delay
	// would outlive Cut and reach the engine later. The request's context
	// ends with the cut of the listener that accepted it.
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	defer context.AfterFunc(cut, cancel)()
	req = req.WithContext(ctx)

	if rec.Fault == nil {
		p.rp.ServeHTTP(w, req)
		return
	}
	rule := rec.Fault.rule
	if rule.Delay > 0 {
		t := time.NewTimer(rule.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			hijackClose(w, nil)
			return
		}
	}
	switch rule.Action {
	case Forward:
		p.rp.ServeHTTP(w, req)
	case Drop:
		hijackClose(w, nil)
	case Reset:
		hijackClose(w, []byte("HTTP/1.1 5"))
	case Error:
		status := rule.Status
		if status == 0 {
			status = http.StatusInternalServerError
		}
		msg := rule.Message
		if msg == "" {
			msg = "faultproxy: injected error"
		}
		writeError(w, status, msg)
	case LoseAnswer:
		p.loseAnswer(w, req)
	default:
		writeError(w, http.StatusInternalServerError, "faultproxy: unknown action "+rule.Action.String())
	}
}

// loseAnswer forwards req, reads the whole answer and sends half of it.
func (p *Proxy) loseAnswer(w http.ResponseWriter, req *http.Request) {
	out := req.Clone(req.Context())
	out.RequestURI = ""
	out.URL.Scheme = "http"
	out.URL.Host = "docker"
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		hijackClose(w, nil)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.TransferEncoding = nil
	var buf bytes.Buffer
	_ = resp.Write(&buf)
	b := buf.Bytes()
	hijackClose(w, b[:len(b)/2])
}

// hijackClose takes the connection from the server, writes partial and
// closes it.
func hijackClose(w http.ResponseWriter, partial []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("faultproxy: connection cannot be hijacked")
	}
	c, bw, err := hj.Hijack()
	if err != nil {
		return
	}
	if len(partial) > 0 {
		_, _ = bw.Write(partial)
		_ = bw.Flush()
	}
	_ = c.Close()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "{\"message\":%q}\n", msg)
}

// listener tracks the connections it accepts so Cut can close them, hijacked
// ones included.
type listener struct {
	net.Listener
	p *Proxy
}

func (l *listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &conn{Conn: c, p: l.p}
	l.p.mu.Lock()
	if l.p.ln != l {
		l.p.mu.Unlock()
		_ = c.Close()
		return nil, net.ErrClosed
	}
	l.p.conns[tc] = struct{}{}
	l.p.mu.Unlock()
	return tc, nil
}

type conn struct {
	net.Conn
	p    *Proxy
	once sync.Once
}

func (c *conn) Close() error {
	c.once.Do(func() {
		c.p.mu.Lock()
		delete(c.p.conns, c)
		c.p.mu.Unlock()
	})
	return c.Conn.Close()
}

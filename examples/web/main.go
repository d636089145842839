// Command web is ostset's demo application and the image its tests run.
//
// It is one static binary (standard library only) meant for a FROM scratch image,
// so it also carries the few tools such an image lacks: a healthcheck client,
// a DNS lookup and tiny file helpers, all reachable with `docker exec`.
//
//	web [serve]          HTTP server on $PORT (default 8080)
//	web health           exit 0 if GET /healthz answers 200 (the Docker healthcheck)
//	web lookup HOST      print HOST's addresses, one per line
//	web write FILE TEXT  write TEXT to FILE
//	web cat FILE         print FILE
//	web touch FILE       create FILE (or update its time)
//	web rm FILE          remove FILE (no error if it is missing)
//	web sleep            never listen, wait for SIGTERM (a replica that never gets healthy)
//
// serve reads these environment variables:
//
//	PORT         listen port (default 8080)
//	DATA_DIR     where the visit counter lives if the directory exists (default /data)
//	VERSION      shown by GET / (default "1"): change it to roll a set
//	GREETING     shown by GET /
//	UNHEALTHY=1  make GET /healthz fail (as does the file $DATA_DIR/unhealthy)
//	START_DELAY  a duration to wait before listening (a slow starter)
//	EXIT_AFTER   a duration after start when the server exits with code 3 (a crashing replica)
//
// and shows those ostset sets on every replica: OSTSET_NAME, OSTSET_ORDINAL,
// OSTSET_SET and OSTSET_SERVICE (the headless-service name that GET /peers resolves).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("web: ")
	cmd, args := "serve", []string(nil)
	if len(os.Args) > 1 {
		cmd, args = os.Args[1], os.Args[2:]
	}
	var err error
	switch {
	case cmd == "serve" && len(args) == 0:
		err = serve()
	case cmd == "health" && len(args) == 0:
		err = health()
	case cmd == "lookup" && len(args) == 1:
		err = lookup(args[0])
	case cmd == "write" && len(args) >= 2:
		err = os.WriteFile(args[0], []byte(strings.Join(args[1:], " ")), 0o644)
	case cmd == "cat" && len(args) == 1:
		var b []byte
		if b, err = os.ReadFile(args[0]); err == nil {
			_, err = os.Stdout.Write(b)
		}
	case cmd == "touch" && len(args) == 1:
		err = touch(args[0])
	case cmd == "rm" && len(args) == 1:
		if err = os.Remove(args[0]); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	case cmd == "sleep" && len(args) == 0:
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		<-ctx.Done()
	default:
		fmt.Fprintln(os.Stderr, "usage: web [serve | health | lookup HOST | write FILE TEXT | cat FILE | touch FILE | rm FILE | sleep]")
		os.Exit(2)
	}
	if err != nil {
		log.Printf("%s: %v", cmd, err)
		os.Exit(1)
	}
}

// serve runs the HTTP server until SIGTERM or SIGINT, then exits 0 within about a second,
// so `docker stop` never has to wait for the grace period.
func serve() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	if d, ok := envDuration("EXIT_AFTER"); ok {
		time.AfterFunc(d, func() {
			log.Printf("EXIT_AFTER=%s elapsed: exiting with code 3", d)
			os.Exit(3)
		})
	}
	if d, ok := envDuration("START_DELAY"); ok {
		log.Printf("START_DELAY=%s: waiting before listening", d)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil
		}
	}

	app := &app{dataDir: env("DATA_DIR", "/data")}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", app.index)
	mux.HandleFunc("GET /healthz", app.healthz)
	mux.HandleFunc("GET /peers", app.peers)

	addr := ":" + env("PORT", "8080")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		log.Printf("signal received, shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close()
		}
	}()
	log.Printf("%s (version %s) listening on %s", env("OSTSET_NAME", hostname()), env("VERSION", "1"), addr)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type app struct {
	dataDir string
	mu      sync.Mutex
	visits  int // used when dataDir does not exist
}

// index answers GET / with who this replica is and how often it was visited.
func (a *app) index(w http.ResponseWriter, r *http.Request) {
	n, persisted, err := a.visit()
	if err != nil {
		http.Error(w, "visit counter: "+err.Error(), http.StatusInternalServerError)
		return
	}
	var b strings.Builder
	if g := os.Getenv("GREETING"); g != "" {
		fmt.Fprintln(&b, g)
	}
	fmt.Fprintf(&b, "hostname: %s\n", hostname())
	fmt.Fprintf(&b, "name:     %s\n", os.Getenv("OSTSET_NAME"))
	fmt.Fprintf(&b, "ordinal:  %s\n", os.Getenv("OSTSET_ORDINAL"))
	fmt.Fprintf(&b, "set:      %s\n", os.Getenv("OSTSET_SET"))
	fmt.Fprintf(&b, "version:  %s\n", env("VERSION", "1"))
	if persisted {
		fmt.Fprintf(&b, "visits:   %d (in %s)\n", n, filepath.Join(a.dataDir, "visits"))
	} else {
		fmt.Fprintf(&b, "visits:   %d (not persisted: %s does not exist)\n", n, a.dataDir)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, b.String())
}

// visit increments the visit counter, in $DATA_DIR/visits if that directory exists
// (the per-ordinal volume, so the count survives the container being replaced).
func (a *app) visit() (n int, persisted bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if fi, err := os.Stat(a.dataDir); err != nil || !fi.IsDir() {
		a.visits++
		return a.visits, false, nil
	}
	file := filepath.Join(a.dataDir, "visits")
	if b, err := os.ReadFile(file); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, true, err
	}
	n++
	// Write a temporary file and rename it, so a kill mid-write never leaves a torn counter.
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(n)+"\n"), 0o644); err != nil {
		return 0, true, err
	}
	return n, true, os.Rename(tmp, file)
}

// healthz is the readiness probe: 503 while $DATA_DIR/unhealthy exists or UNHEALTHY=1.
func (a *app) healthz(w http.ResponseWriter, r *http.Request) {
	if os.Getenv("UNHEALTHY") == "1" {
		http.Error(w, "unhealthy: UNHEALTHY=1", http.StatusServiceUnavailable)
		return
	}
	if _, err := os.Stat(filepath.Join(a.dataDir, "unhealthy")); err == nil {
		http.Error(w, "unhealthy: "+filepath.Join(a.dataDir, "unhealthy")+" exists", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// peers resolves the headless-service name, which has one address per running replica.
func (a *app) peers(w http.ResponseWriter, r *http.Request) {
	service := os.Getenv("OSTSET_SERVICE")
	if service == "" {
		http.Error(w, "OSTSET_SERVICE is not set", http.StatusNotFound)
		return
	}
	addrs, err := resolve(r.Context(), service)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, strings.Join(addrs, "\n")+"\n")
}

// health is the Docker healthcheck: the image has no shell and no curl.
func health() error {
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Get("http://127.0.0.1:" + env("PORT", "8080") + "/healthz")
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return nil
}

func lookup(host string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := resolve(ctx, host)
	if err != nil {
		return err
	}
	fmt.Println(strings.Join(addrs, "\n"))
	return nil
}

// resolve returns the sorted addresses of host, or an error if there are none.
func resolve(ctx context.Context, host string) ([]string, error) {
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s: no addresses", host)
	}
	sort.Strings(addrs)
	return addrs, nil
}

func touch(file string) error {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	now := time.Now()
	return os.Chtimes(file, now, now)
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// envDuration reads a duration such as "2s" from the environment; an unset, empty
// or invalid value means "not set" (an invalid one is logged).
func envDuration(key string) (time.Duration, bool) {
	v := os.Getenv(key)
	if v == "" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		log.Printf("ignoring %s=%q: %v", key, v, err)
		return 0, false
	}
	return d, true
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// Package metrics serves the daemon's Prometheus metrics (/metrics) and its
// health check (/healthz). It implements daemon.Metrics.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/plan"
)

// Daemon holds the daemon's metrics on a registry of its own.
type Daemon struct {
	Registry *prometheus.Registry
	// Profiling adds Go's profiles under /debug/pprof/ (CPU, heap,
	// goroutines, execution trace) to Handler. Off by default: a profile
	// shows the daemon's internals to whoever reaches the address.
	Profiling bool

	reconciles *prometheus.CounterVec
	actions    *prometheus.CounterVec
	reaction   prometheus.Histogram
	errors     *prometheus.CounterVec
	sets       *prometheus.GaugeVec
	replicas   *prometheus.GaugeVec

	mu       sync.Mutex
	setState map[string]string // set -> its state label
	// engineGone is why the engine cannot be reached, since when; nil while
	// it can (or before the daemon first tried).
	engineGone *goneEngine
}

type goneEngine struct {
	since time.Time
	err   error
}

var _ daemon.Metrics = (*Daemon)(nil)

// Set states, the values of ostset_sets' state label.
const (
	SetConverged   = "converged"   // the last pass found the rollout complete
	SetProgressing = "progressing" // a rollout or a repair is under way
	SetFailing     = "failing"     // the last pass failed (it is retried with back-off)
)

// New makes the metrics, with Go and process collectors.
func New() *Daemon {
	d := &Daemon{
		Registry: prometheus.NewRegistry(),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ostset_reconciles_total",
			Help: "Reconcile passes, by set and result (ok or error).",
		}, []string{"set", "result"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ostset_actions_total",
			Help: "Actions the daemon carried out (or tried to), by kind.",
		}, []string{"kind"}),
		reaction: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "ostset_reaction_seconds",
			Help:    "From a Docker event seen by the daemon to the return of the replica create it led to.",
			Buckets: []float64{.01, .025, .05, .075, .1, .15, .25, .5, 1, 2.5, 5, 10},
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "ostset_docker_errors_total",
			Help: "Failed calls to the Docker engine, by operation.",
		}, []string{"op"}),
		sets: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ostset_sets",
			Help: "Sets by state (converged, progressing, failing) as of their last pass.",
		}, []string{"state"}),
		replicas: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "ostset_replicas",
			Help: "Replicas by set and state (ready, not_ready, missing) as of the set's last successful pass.",
		}, []string{"set", "state"}),
		setState: map[string]string{},
	}
	for _, s := range []string{SetConverged, SetProgressing, SetFailing} {
		d.sets.WithLabelValues(s) // every state is present, at 0
	}
	// Series that exist from the start at 0, so that a rate() has a start.
	for _, k := range []plan.ActionKind{plan.ActCreate, plan.ActStart, plan.ActDelete, plan.ActDeleteVolume, plan.ActCreateInit, plan.ActDeleteInit, plan.ActConnect, plan.ActStop} {
		d.actions.WithLabelValues(k.String())
	}
	for _, op := range []string{"events", "observe", "create", "start", "connect", "stop", "remove"} {
		d.errors.WithLabelValues(op)
	}
	d.Registry.MustRegister(d.reconciles, d.actions, d.reaction, d.errors, d.sets, d.replicas,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return d
}

// Pass implements daemon.Metrics.
func (d *Daemon) Pass(set string, pl plan.Plan, err error) {
	if err != nil {
		d.reconciles.WithLabelValues(set, "error").Inc()
		d.setSet(set, SetFailing)
		return
	}
	d.reconciles.WithLabelValues(set, "ok").Inc()
	for _, a := range pl.Actions {
		d.actions.WithLabelValues(a.Kind.String()).Inc()
	}
	state := SetProgressing
	if pl.Complete {
		state = SetConverged
	}
	d.setSet(set, state)
	ready, notReady := 0, 0
	for _, c := range pl.Status.Containers {
		if c.Ready {
			ready++
		} else {
			notReady++
		}
	}
	d.replicas.WithLabelValues(set, "ready").Set(float64(ready))
	d.replicas.WithLabelValues(set, "not_ready").Set(float64(notReady))
	d.replicas.WithLabelValues(set, "missing").Set(float64(max(pl.Status.Replicas-ready-notReady, 0)))
}

func (d *Daemon) setSet(set, state string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.setState[set]; ok {
		d.sets.WithLabelValues(old).Dec()
	}
	d.setState[set] = state
	d.sets.WithLabelValues(state).Inc()
}

// Reacted implements daemon.Metrics.
func (d *Daemon) Reacted(t time.Duration) { d.reaction.Observe(t.Seconds()) }

// RuntimeError implements daemon.Metrics.
func (d *Daemon) RuntimeError(op string) { d.errors.WithLabelValues(op).Inc() }

// Forget implements daemon.Metrics.
func (d *Daemon) Forget(set string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.setState[set]; ok {
		d.sets.WithLabelValues(old).Dec()
		delete(d.setState, set)
	}
	d.replicas.DeletePartialMatch(prometheus.Labels{"set": set})
	d.reconciles.DeletePartialMatch(prometheus.Labels{"set": set})
}

// EngineGone implements daemon.Metrics.
func (d *Daemon) EngineGone(err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case err == nil:
		d.engineGone = nil
	case d.engineGone == nil:
		d.engineGone = &goneEngine{since: time.Now(), err: err}
	default:
		d.engineGone.err = err
	}
}

// healthz answers 200 "ok" while the daemon can do its job, and 503 with the
// reason while it cannot: the engine is gone, so no set is kept converged.
func (d *Daemon) healthz(w http.ResponseWriter, _ *http.Request) {
	d.mu.Lock()
	gone := d.engineGone
	d.mu.Unlock()
	if gone != nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "docker engine gone for %s: %v\n", time.Since(gone.since).Round(time.Second), gone.err)
		return
	}
	_, _ = w.Write([]byte("ok\n"))
}

// Handler serves /metrics and /healthz, and /debug/pprof/ if Profiling is set.
func (d *Daemon) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", d.healthz)
	if d.Profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index) // the named profiles: heap, goroutine, allocs…
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// Serve listens on addr (HOST:PORT) and serves Handler until ctx ends. It
// returns once it listens, with the address it listens on (useful with port 0).
func (d *Daemon) Serve(ctx context.Context, addr string) (net.Addr, <-chan error, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr(), done, nil
}

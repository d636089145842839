package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/daemon"
	"github.com/ostset/ostset/engine/liveness"
	"github.com/ostset/ostset/engine/prober"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/metrics"
)

func newDaemonCmd(a *app) *cobra.Command {
	var logFormat, logLevel, metricsAddr string
	var resync time.Duration
	var profiling bool
	cmd := &cobra.Command{
		Use:   "daemon",
		Short: "Run the controller continuously for every set, reacting to Docker events",
		Long: `Keeps every set in the state directory converged: one Docker event subscription for
all sets, a pass per set when an event, a change of its state file or its next planned time
says so, and at least every 30s. SIGTERM or SIGINT finishes the passes in flight and exits 0.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := newLogger(a.stderr, logFormat, logLevel)
			if err != nil {
				return invalid(err)
			}
			if resync < time.Second {
				return invalidf("--resync: %s is shorter than 1s", resync)
			}
			if profiling && metricsAddr == "" {
				return invalidf("--pprof: profiles are served on --metrics-addr, which is not set")
			}
			return a.runDaemon(cmd.Context(), log, metricsAddr, profiling, resync)
		},
	}
	cmd.Flags().StringVar(&logFormat, "log-format", "text", "log format: text or json (to stderr)")
	cmd.Flags().StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn or error")
	cmd.Flags().StringVar(&metricsAddr, "metrics-addr", "", "serve /metrics (Prometheus) and /healthz on HOST:PORT (default: off)")
	cmd.Flags().BoolVar(&profiling, "pprof", false, "also serve Go's profiles under /debug/pprof/ on --metrics-addr")
	// For tests that must tell a reaction from the safety net.
	cmd.Flags().DurationVar(&resync, "resync", 30*time.Second, "the longest a set goes without a pass")
	_ = cmd.Flags().MarkHidden("resync")
	return cmd
}

// newLogger builds the daemon's logger from its flags.
func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil || !strings.Contains("debug info warn error", strings.ToLower(level)) {
		return nil, fmt.Errorf("--log-level: %q is not one of debug, info, warn, error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", format)
}

func (a *app) runDaemon(ctx context.Context, log *slog.Logger, metricsAddr string, profiling bool, resync time.Duration) error {
	rt, err := a.runtime()
	if err != nil {
		return err
	}
	store := a.store()
	// A set's lock held by a command is waited for in the daemon's own log
	// format: a raw line would break a JSON log.
	store.Waiting = func(msg string) { log.Info(msg) }
	release, err := store.HoldDaemon()
	if unwritten := (*state.PidUnwrittenError)(nil); errors.As(err, &unwritten) {
		log.Warn(err.Error())
	} else if err != nil {
		return err
	}
	defer release()
	c := &engine.Controller{
		Runtime: rt,
		Store:   store,
		Log:     log,
		Report: func(e state.Event) {
			log.Info(e.Message, "set", e.Set, "replica", e.Replica)
		},
		Probe:  probeProgram(rt),
		Prober: prober.New(rt),
	}
	defer c.Prober.Close()
	lv := liveness.New(rt, nil).Waking(c.Prober.Changed)
	defer lv.Close()
	c.Liveness = lv
	c.Prober.WhileStarting = a.probeStarting()
	d := &daemon.Daemon{Controller: c, Events: rt, Resync: resync}
	if metricsAddr != "" {
		m := metrics.New()
		m.Profiling = profiling
		addr, served, err := m.Serve(ctx, metricsAddr)
		if err != nil {
			return invalidf("--metrics-addr %s: %w", metricsAddr, err)
		}
		log.Info("serving metrics", "addr", "http://"+addr.String()+"/metrics")
		if profiling {
			log.Info("serving profiles", "addr", "http://"+addr.String()+"/debug/pprof/")
		}
		d.Metrics = m
		defer func() {
			if err := <-served; err != nil {
				log.Error("metrics server", "err", err)
			}
		}()
	}
	return d.Run(ctx)
}

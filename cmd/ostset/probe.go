package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/health"
)

// newProbeCmd is the probe of a Kubernetes tcpSocket or httpGet
// readinessProbe as ostset itself runs it: the same command as
// cmd/ostset-probe, which replicas get at config.ProbePath, so that an
// ostset built without the probes can copy itself there instead (see
// probeProgram). Hidden: users write a readinessProbe, not this command.
func newProbeCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:    "probe tcp HOST:PORT | probe http URL",
		Short:  "Check a TCP port or an HTTP URL (the healthcheck of a tcpSocket or httpGet probe)",
		Hidden: true,
		Args:   exactArgs(2),
		// It runs inside a replica: no settings, no state directory, no Docker.
		PersistentPreRunE: func(*cobra.Command, []string) error { return nil },
		PersistentPostRun: func(*cobra.Command, []string) {},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			switch args[0] {
			case "tcp":
				return health.ProbeTCP(ctx, args[1])
			case "http":
				return health.ProbeHTTP(ctx, args[1])
			}
			return invalidf("probe: %q: tcp or http", args[0])
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "give up after this long (the healthcheck's own timeout also applies)")
	return cmd
}

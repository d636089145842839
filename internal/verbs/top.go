package verbs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/internal/live"
)

// topInterval is the time between the two stats samples that a CPU share is
// measured over.
const topInterval = time.Second

// newTopCmd is kubectl top pod: each running replica's CPU (in millicores,
// over a second) and memory (page cache left out, as docker stats).
func newTopCmd(env Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top [SET...]",
		Short: "Show the CPU and memory use of every running replica (kubectl top pod)",
		Long: `Show the CPU and memory use of every running replica of the sets (or of SET...),
as kubectl top pod does: CPU in millicores (1000m is one CPU), measured between two
of Docker's stats samples a second apart, and memory in MiB without the page cache,
as docker stats shows it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if env.Stats == nil {
				return invalidf("top needs Docker's stats, which this runtime does not give")
			}
			sets := args
			if len(sets) == 0 {
				var err error
				if sets, err = env.Sets(); err != nil {
					return err
				}
			}
			type replica struct{ set, name, id string }
			var reps []replica
			for _, set := range sets {
				var buf bytes.Buffer
				if err := env.Run(cmd.Context(), slices.Concat([]string{"get", set, "-o", "json"}, inherited(cmd)), &buf); err != nil {
					return err
				}
				var objs []struct{ Name, ID, State string }
				if err := json.Unmarshal(buf.Bytes(), &objs); err != nil {
					return fmt.Errorf("get %s -o json: %w", set, err)
				}
				for _, o := range objs {
					if o.State == "running" && o.ID != "" {
						reps = append(reps, replica{set, o.Name, o.ID})
					}
				}
			}
			first := make([]live.Usage, len(reps))
			for i, r := range reps {
				first[i], _ = env.Stats(cmd.Context(), r.set, r.id) // a replica gone meanwhile shows "-"
			}
			select {
			case <-time.After(topInterval):
			case <-cmd.Context().Done():
				return context.Cause(cmd.Context())
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tCPU(cores)\tMEMORY(bytes)")
			for i, r := range reps {
				cpu, mem := "-", "-"
				if cur, err := env.Stats(cmd.Context(), r.set, r.id); err == nil {
					if pct, ok := live.CPUPercent(first[i], cur); ok {
						cpu = fmt.Sprintf("%dm", int(pct*10+0.5))
					}
					mem = fmt.Sprintf("%dMi", (cur.Memory+(1<<19))>>20)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", r.name, cpu, mem)
			}
			return w.Flush()
		},
	}
	return cmd
}

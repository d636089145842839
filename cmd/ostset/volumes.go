package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	units "github.com/docker/go-units"
	"github.com/spf13/cobra"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/internal/present"
)

func newVolumesCmd(a *app) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "volumes [SET]",
		Short: "List the sets' per-ordinal volumes: ordinal, size, and the replica using each",
		Long: `List the per-ordinal volumes of every set (or of SET): the claim and ordinal,
the size on disk when Docker reports it (the local driver), and the replica
that uses it, or "kept" for a volume that a scale-down or a down left for its
ordinal to come back to.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(output, "", "json", "yaml"); err != nil {
				return err
			}
			names := args
			if len(args) == 0 {
				listed, err := a.store().List()
				if err != nil {
					return err
				}
				names = listed
			} else if _, err := a.store().Load(args[0]); err != nil {
				return err
			}
			rows, err := a.volumeRows(cmd.Context(), names)
			if err != nil {
				return err
			}
			if output != "" {
				if rows == nil {
					rows = []volumeRow{}
				}
				return present.PrintStructured(a.stdout, output, rows)
			}
			if len(rows) == 0 {
				fmt.Fprintln(a.stderr, "No volumes found.")
				return nil
			}
			now := time.Now()
			w := table(a.stdout)
			printCells(w, []string{"NAME", "SET", "CLAIM", "ORDINAL", "SIZE", "USED BY", "AGE"})
			for _, r := range rows {
				size := "-"
				if r.Size != nil {
					size = units.HumanSize(float64(*r.Size))
				}
				printCells(w, []string{r.Name, r.Set, r.Claim, strconv.Itoa(r.Ordinal), size, orDefault(r.UsedBy, "kept"), present.Age(r.Created, now)})
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml")
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

type volumeRow struct {
	Name    string    `json:"name"`
	Set     string    `json:"set"`
	Claim   string    `json:"claim"`
	Ordinal int       `json:"ordinal"`
	Size    *int64    `json:"size,omitempty"`
	UsedBy  string    `json:"usedBy,omitempty"`
	Created time.Time `json:"created"`
}

// volumeRows observes the named sets' volumes and which replica (a
// container of the set at the volume's ordinal, in any state) uses each.
func (a *app) volumeRows(ctx context.Context, sets []string) ([]volumeRow, error) {
	rt, err := a.runtime()
	if err != nil {
		return nil, err
	}
	sizeCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	sizes, err := rt.VolumeSizes(sizeCtx)
	cancel()
	if err != nil {
		fmt.Fprintf(a.stderr, "note: no sizes: %v\n", err)
	}
	var rows []volumeRow
	for _, set := range sets {
		obs, err := rt.Observe(ctx, set, engine.ObserveOptions{})
		if err != nil {
			return nil, err
		}
		for _, v := range obs.Volumes {
			row := volumeRow{Name: v.Name, Set: set, Claim: v.Claim, Ordinal: v.Ordinal, Created: v.Created}
			if s, ok := sizes[v.Name]; ok {
				row.Size = &s
			}
			if i := slices.IndexFunc(obs.Replicas, func(r plan.Replica) bool { return r.Ordinal == v.Ordinal }); i >= 0 {
				row.UsedBy = obs.Replicas[i].Name
			}
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, func(x, y volumeRow) int {
		if x.Set != y.Set {
			return cmpString(x.Set, y.Set)
		}
		if x.Ordinal != y.Ordinal {
			return x.Ordinal - y.Ordinal
		}
		return cmpString(x.Claim, y.Claim)
	})
	return rows, nil
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Package volumelist lists the sets' per-ordinal volumes (ostset volumes):
// of the stored sets, and of the sets deleted with their volumes kept, which
// only the volumes' labels still name. It reads through the controller and
// what it is given; it drives nothing.
package volumelist

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	units "github.com/docker/go-units"

	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/present"
)

// Row is one volume.
type Row struct {
	Name    string    `json:"name"`
	Set     string    `json:"set"`
	Claim   string    `json:"claim"`
	Ordinal int       `json:"ordinal"`
	Size    *int64    `json:"size,omitempty"`
	UsedBy  string    `json:"usedBy,omitempty"`
	Created time.Time `json:"created"`
	// SetDeleted: the set is deleted (ostset down kept its volumes).
	SetDeleted bool `json:"setDeleted,omitempty"`
}

// Source is what the list asks Docker besides the controller.
type Source interface {
	// VolumeSets names the sets that have volumes, by their labels.
	VolumeSets(ctx context.Context) ([]string, error)
	// VolumeSizes is the size on disk of the volumes Docker can measure.
	VolumeSizes(ctx context.Context) (map[string]int64, error)
}

// Rows lists the volumes of set, or ("") of every set the state directory
// holds or whose volumes it owns. note is told what could not be read
// (the sizes).
func Rows(ctx context.Context, c *engine.Controller, src Source, set string, note func(string)) ([]Row, error) {
	names := []string{set}
	if set == "" {
		stored, err := c.Store.List()
		if err != nil {
			return nil, err
		}
		labelled, err := src.VolumeSets(ctx)
		if err != nil {
			return nil, err
		}
		names = slices.Compact(slices.Sorted(slices.Values(append(stored, labelled...))))
	}
	var rows []Row
	for _, name := range names {
		obs, stored, err := c.ObserveVolumes(ctx, name)
		if errors.Is(err, state.ErrUnknownSet) && set == "" {
			continue // another state directory's volumes, or deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		for _, v := range obs.Volumes {
			row := Row{Name: v.Name, Set: name, Claim: v.Claim, Ordinal: v.Ordinal, Created: v.Created, SetDeleted: !stored}
			for _, r := range obs.Replicas {
				if r.Ordinal == v.Ordinal {
					row.UsedBy = r.Name
				}
			}
			rows = append(rows, row)
		}
	}
	if len(rows) > 0 {
		sizeCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
		sizes, err := src.VolumeSizes(sizeCtx)
		cancel()
		if err != nil {
			note(fmt.Sprintf("no sizes: %v", err))
		}
		for i := range rows {
			if s, ok := sizes[rows[i].Name]; ok {
				rows[i].Size = &s
			}
		}
	}
	slices.SortStableFunc(rows, func(x, y Row) int {
		return cmp.Or(cmp.Compare(x.Set, y.Set), cmp.Compare(x.Ordinal, y.Ordinal), cmp.Compare(x.Claim, y.Claim))
	})
	return rows, nil
}

// Print writes the rows as a table (output "") or as JSON or YAML; notes
// (nothing found, how to remove a deleted set's volumes) go to stderr.
func Print(stdout, stderr io.Writer, rows []Row, output string, now time.Time) error {
	if output != "" {
		if rows == nil {
			rows = []Row{}
		}
		return present.PrintStructured(stdout, output, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(stderr, "No volumes found.")
		return nil
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 3, ' ', 0) // as the other tables
	fmt.Fprintln(w, "NAME\tSET\tCLAIM\tORDINAL\tSIZE\tUSED BY\tAGE")
	var deleted []string
	for _, r := range rows {
		size := "-"
		if r.Size != nil {
			size = units.HumanSize(float64(*r.Size))
		}
		used := r.UsedBy
		switch {
		case r.SetDeleted && used == "":
			used = "kept (set deleted)"
			if !slices.Contains(deleted, r.Set) {
				deleted = append(deleted, r.Set)
			}
		case used == "":
			used = "kept"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, r.Set, r.Claim, strconv.Itoa(r.Ordinal), size, used, present.Age(r.Created, now))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, set := range deleted {
		fmt.Fprintf(stderr, "note: set %s is deleted and its volumes kept: 'ostset up' of it again reuses them, 'ostset down %s --volumes' removes them\n", set, set)
	}
	return nil
}

package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/compose"
	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/internal/preview"
)

// errChanged is exit code 1 of diff and up --dry-run: something would change.
var errChanged = errors.New("changes found")

func newDiffCmd(a *app) *cobra.Command {
	var files []string
	var lenient, strict bool
	var output string
	var cf composeFlags
	cmd := &cobra.Command{
		Use:   "diff -f FILE [-f FILE...]",
		Short: "Show what up -f FILE would change (each set's revision diff and plan), changing nothing; exit 1 when something would",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.diff(cmd.Context(), files, cf, lenient, strict, output)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "set file (YAML, one or more documents), Kubernetes manifest or compose file")
	cmd.Flags().BoolVar(&lenient, "lenient", false, "go on when a Kubernetes manifest or a compose file has fields ostset cannot map")
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: json or yaml")
	strictFlag(cmd, &strict)
	cf.register(cmd)
	return cmd
}

// diff prints what up -f files would change, and changes nothing: no state
// written, no image pulled or built, nothing made on the engine. Exit codes
// are kubectl diff's: 0 no change, 1 a change (errChanged), 2 or more an error.
func (a *app) diff(ctx context.Context, files []string, cf composeFlags, lenient, strict bool, output string) error {
	changed, err := a.previewFiles(ctx, files, cf, lenient, strict, output)
	switch {
	case err != nil && exitCode(err) == exitFailure:
		return invalid(err)
	case err == nil && changed:
		return &exitError{code: exitFailure, err: errChanged}
	}
	return err
}

func (a *app) previewFiles(ctx context.Context, files []string, cf composeFlags, lenient, strict bool, output string) (bool, error) {
	a.dryRun = true
	var sets, jobs []config.Set
	isCompose, err := composeFiles(files)
	if len(files) == 0 {
		err = invalidf("-f FILE is required")
	} else if err == nil && isCompose {
		var p *compose.Project
		if p, err = a.loadCompose(ctx, files, cf, lenient); err == nil {
			sets, jobs = p.Sets, p.Jobs
		}
	} else if err == nil {
		sets, err = a.loadFiles(files, lenient, strict, true)
	}
	if err == nil {
		err = a.checkOwners(sets, jobs)
	}
	if err == nil {
		err = a.preflight(ctx, sets)
	}
	c, cerr := a.controller()
	if err = errors.Join(err, cerr); err != nil {
		return false, err
	}
	e := preview.Engine{Controller: c}
	if rt, ok := c.Runtime.(*docker.Runtime); ok {
		e.NetworkExists = rt.NetworkExists
	}
	return e.Sets(ctx, sets, setNames(jobs), a.stdout, output)
}

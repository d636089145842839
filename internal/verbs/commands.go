package verbs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

// newWaitCmd is kubectl wait --for=condition=Ready: for a set, until its
// rollout is complete (rollout status); for a replica, until it is ready.
func newWaitCmd(env Env) *cobra.Command {
	var cond string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "wait --for=condition=Ready SET | SET-ORDINAL",
		Short: "Wait until a set's rollout is complete, or one replica is ready",
		Long: `Wait, as kubectl wait --for=condition=Ready does: for SET, until its rollout is
complete (every replica of the update revision ready, as ostset rollout status);
for SET-ORDINAL (e.g. web-1), until that replica is ready, following Docker's
events as ostset get -w does. With --timeout, give up after that long (exit
code 3).`,
		Example: `  ostset wait --for=condition=Ready web
  ostset wait --for=condition=Ready web-0 --timeout 2m`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return invalidf("wait takes one SET or SET-ORDINAL, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if c, ok := strings.CutPrefix(cond, "condition="); !ok || !strings.EqualFold(c, "Ready") {
				return invalidf("--for %q: ostset waits for --for=condition=Ready (a set's rollout complete, or a replica ready)", cond)
			}
			sets, err := env.Sets()
			if err != nil {
				return err
			}
			name := args[0]
			set, ordinal := replicaOf(name, sets)
			if ordinal < 0 {
				return env.Run(cmd.Context(), slices.Concat([]string{"rollout", "status", name, "--timeout=" + timeout.String()}, inherited(cmd)), cmd.OutOrStdout())
			}
			ctx := cmd.Context()
			if timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, timeout)
				defer cancel()
			}
			return waitReady(ctx, env, inherited(cmd), set, name, ordinal, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&cond, "for", "condition=Ready", "the condition to wait for: condition=Ready")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "give up waiting after this long (exit code 3); 0: no limit")
	return cmd
}

// replicaOf splits SET-ORDINAL into a stored set and the ordinal; ordinal -1
// when name is a set's name or no replica of a stored set.
func replicaOf(name string, sets []string) (string, int) {
	if slices.Contains(sets, name) {
		return name, -1
	}
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name, -1
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil || n < 0 || !slices.Contains(sets, name[:i]) {
		return name, -1
	}
	return name[:i], n
}

// waitReady runs get SET -w -o json and reads its objects until replica is
// ready; then it ends the watch. Meanwhile rollout status SET follows the
// set's rollout, and drives it when no daemon runs (as after up --wait=false):
// nothing else would create the replica.
func waitReady(ctx context.Context, env Env, flags []string, set, replica string, ordinal int, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := env.Run(ctx, slices.Concat([]string{"get", set, "-w", "-o", "json"}, flags), pw)
		_ = pw.CloseWithError(io.EOF)
		done <- err
	}()
	rollout := make(chan error, 1)
	go func() {
		err := env.Run(ctx, slices.Concat([]string{"rollout", "status", set, "--progress=plain"}, flags), io.Discard)
		if err != nil {
			cancel() // the rollout failed: the replica may never be ready
		}
		rollout <- err
	}()
	ready := false
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		var obj struct {
			Name    string `json:"name"`
			Ordinal *int   `json:"ordinal"`
			Ready   bool   `json:"ready"`
		}
		if json.Unmarshal(sc.Bytes(), &obj) != nil || obj.Ordinal == nil || *obj.Ordinal != ordinal {
			continue
		}
		if obj.Ready {
			ready = true
			cancel()
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	err := <-done
	cancel()
	if rerr := <-rollout; !ready && rerr != nil && !errors.Is(rerr, context.Canceled) {
		return rerr
	}
	switch {
	case ready:
		fmt.Fprintf(out, "%s condition met\n", replica)
		return nil
	case err != nil:
		return err
	case ctx.Err() != nil:
		return fmt.Errorf("waiting for %s to be ready: %w", replica, context.Cause(ctx))
	}
	return fmt.Errorf("waiting for %s to be ready: the watch ended", replica)
}

// newPsCmd is docker compose ps: every replica of the sets (or of SET...).
func newPsCmd(env Env) *cobra.Command {
	var output, project string
	cmd := &cobra.Command{
		Use:   "ps [SET...]",
		Short: "List the replicas of every set (or of SET...): compose ps",
		RunE: func(cmd *cobra.Command, args []string) error {
			sets := args
			if len(sets) == 0 {
				var err error
				if sets, err = env.Sets(); err != nil {
					return err
				}
			}
			if project != "" {
				if len(args) > 0 {
					return invalidf("ps: give sets or -p PROJECT, not both")
				}
				byProject, err := projects(env, sets)
				if err != nil {
					return err
				}
				if sets = byProject[project]; len(sets) == 0 {
					return invalidf("ps -p %s: no stored set belongs to compose project %s (ostset ls lists the projects)", project, project)
				}
			}
			if len(sets) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "no sets (ostset up -f FILE creates one)")
			}
			for i, set := range sets {
				if i > 0 && output == "" {
					fmt.Fprintln(cmd.OutOrStdout())
				}
				args := slices.Concat([]string{"get", set}, inherited(cmd))
				if output != "" {
					args = append(args, "-o", output)
				}
				if err := env.Run(cmd.Context(), args, cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "output format: wide, json or yaml")
	cmd.Flags().StringVarP(&project, "project-name", "p", "", "only the sets of this compose project")
	return cmd
}

// projects groups sets by their compose project ("" for sets of set files).
func projects(env Env, sets []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, s := range sets {
		p, err := env.Project(s)
		if err != nil {
			return nil, err
		}
		out[p] = append(out[p], s)
	}
	return out, nil
}

// newLsCmd is docker compose ls: the compose projects, with their sets, and
// the sets of set files.
func newLsCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "ls",
		Short: "List the compose projects and their sets, and the sets of set files (compose ls)",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return invalidf("ls takes no arguments (ostset get SET lists a set's replicas)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			sets, err := env.Sets()
			if err != nil {
				return err
			}
			byProject, err := projects(env, sets)
			if err != nil {
				return err
			}
			names := slices.Sorted(maps.Keys(byProject))
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "PROJECT\tSETS")
			for _, p := range names {
				label := p
				if p == "" {
					label = "(set files)"
				}
				fmt.Fprintf(w, "%s\t%s\n", label, strings.Join(stoppedNames(env, byProject[p]), ","))
			}
			return w.Flush()
		},
	}
}

// stoppedNames are the sets' names, each of a stopped set followed by
// "(stopped)".
func stoppedNames(env Env, sets []string) []string {
	out := slices.Clone(sets)
	for i, set := range out {
		if st, err := env.Load(set); err == nil && st.Stopped {
			out[i] += "(stopped)"
		}
	}
	return out
}

// newConfigCmd is docker compose config: the effective model, as set files.
func newConfigCmd(env Env) *cobra.Command {
	var files []string
	cmd := &cobra.Command{
		Use:   "config [SET...] | config -f FILE [-f FILE...]",
		Short: "Print the effective sets as set files (YAML): stored sets, or those FILE makes",
		Long: `Print the effective model, as docker compose config does, as set files (YAML):
with -f, the sets that ostset up -f FILE would make of a set file, Kubernetes
manifest or compose file (ostset convert -o yaml); else the stored sets (all,
or SET...) as ostset stores them (ostset export -o yaml).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(files) > 0 {
				if len(args) > 0 {
					return invalidf("config: give sets or -f FILE, not both")
				}
				a := []string{"convert", "-o", "yaml"}
				for _, f := range files {
					a = append(a, "-f", f)
				}
				return env.Run(cmd.Context(), slices.Concat(a, inherited(cmd)), cmd.OutOrStdout())
			}
			sets := args
			if len(sets) == 0 {
				var err error
				if sets, err = env.Sets(); err != nil {
					return err
				}
			}
			for i, set := range sets {
				if i > 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "---")
				}
				if err := env.Run(cmd.Context(), slices.Concat([]string{"export", set, "-o", "yaml"}, inherited(cmd)), cmd.OutOrStdout()); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "set file, Kubernetes manifest or compose file")
	return cmd
}

// newEditCmd is kubectl edit: the stored set file in an editor, applied
// (ostset up -f) once saved with a change.
func newEditCmd(env Env) *cobra.Command {
	var wait bool
	cmd := &cobra.Command{
		Use:   "edit SET",
		Short: "Edit a set's stored set file in $EDITOR and apply it on save",
		Long: `Open the set's set file, as ostset stores it (ostset export SET -o yaml), in
$KUBE_EDITOR, $VISUAL or $EDITOR (default vi). When the editor exits with the
file changed, apply it as ostset up -f does (and, by default, wait for the
rollout). When it is unchanged, nothing happens. When the change is refused,
the edited file is kept and its path printed, to fix and apply with up -f.`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return invalidf("edit takes one SET, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var before bytes.Buffer
			if err := env.Run(cmd.Context(), slices.Concat([]string{"export", args[0], "-o", "yaml"}, inherited(cmd)), &before); err != nil {
				return err
			}
			dir, err := os.MkdirTemp("", "ostset-edit-")
			if err != nil {
				return err
			}
			file := filepath.Join(dir, args[0]+".yaml")
			if err := os.WriteFile(file, before.Bytes(), 0o600); err != nil {
				return err
			}
			if err := runEditor(cmd, file); err != nil {
				_ = os.RemoveAll(dir)
				return err
			}
			after, err := os.ReadFile(file)
			if err != nil {
				return err
			}
			if bytes.Equal(after, before.Bytes()) {
				_ = os.RemoveAll(dir)
				fmt.Fprintln(cmd.ErrOrStderr(), "edit cancelled, no changes made")
				return nil
			}
			err = env.Run(cmd.Context(), slices.Concat([]string{"up", "-f", file, "--wait=" + strconv.FormatBool(wait)}, inherited(cmd)), cmd.OutOrStdout())
			if err != nil {
				return fmt.Errorf("%w (the edited file is kept: %s)", err, file)
			}
			_ = os.RemoveAll(dir)
			return nil
		},
	}
	cmd.Flags().BoolVar(&wait, "wait", true, "wait until the rollout is complete; --wait=false only stores the change")
	return cmd
}

func runEditor(cmd *cobra.Command, file string) error {
	editor := "vi"
	for _, env := range []string{"KUBE_EDITOR", "VISUAL", "EDITOR"} {
		if e := os.Getenv(env); e != "" {
			editor = e
			break
		}
	}
	c := exec.CommandContext(cmd.Context(), "sh", "-c", editor+` "$1"`, "sh", file)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("editor %s exited %d: nothing applied", editor, ee.ExitCode())
		}
		return fmt.Errorf("editor %s: %w", editor, err)
	}
	return nil
}

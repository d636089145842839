package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/compose"
	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/docker"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// composeFlags are the loader flags of 'docker compose' that up, down and
// convert take with a compose file.
type composeFlags struct {
	project  string
	envFiles []string
	profiles []string
}

func (f *composeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&f.project, "project-name", "p", "", "compose project name (default: name: of the file, else its directory)")
	cmd.Flags().StringArrayVar(&f.envFiles, "env-file", nil, "compose: environment file for interpolation (default: .env of the project directory)")
	cmd.Flags().StringArrayVar(&f.profiles, "profile", nil, "compose: enable the services of this profile")
}

func (f composeFlags) options(files []string) compose.Options {
	return compose.Options{Files: files, ProjectName: f.project, EnvFiles: f.envFiles, Profiles: f.profiles}
}

// composeFiles tells whether the files are compose files (compose.AreComposeFiles).
func composeFiles(files []string) (bool, error) {
	ok, err := compose.AreComposeFiles(files)
	if err != nil {
		return false, invalid(err)
	}
	return ok, nil
}

// loadCompose loads a compose project. What ostset cannot map is an error,
// each field on its line, or with lenient a warning each.
func (a *app) loadCompose(ctx context.Context, files []string, f composeFlags, lenient bool) (*compose.Project, error) {
	opt := f.options(files)
	if rt, err := a.runtime(); err == nil { // start_interval maps when the engine takes it
		opt.EngineAPI = rt.APIVersion()
	}
	opt.Warn = a.warn
	opt.ConfigDir = a.store().ConfigDir()
	p, err := compose.Load(ctx, opt)
	if err != nil {
		return nil, invalid(err)
	}
	for _, w := range p.Warnings {
		a.warn(w)
	}
	if len(p.Unmapped) > 0 {
		if !lenient {
			return nil, invalidf("ostset cannot map these fields (--lenient makes them warnings):\n%s", strings.Join(p.Unmapped, "\n"))
		}
		for _, u := range p.Unmapped {
			a.warn(u + " (ignored)")
		}
	}
	// Jobs too: services x_db and x-db are both set <project>-x-db.
	if err := config.CheckSets(append(slices.Clone(p.Sets), p.Jobs...)); err != nil {
		return nil, invalid(err)
	}
	return p, nil
}

// upCompose creates or updates the sets of a compose project in dependency
// order: a set is applied only once the sets it depends on have completed
// their rollouts (service_started and service_healthy alike: a replica is
// ready once running, or healthy when it has a healthcheck).
func (a *app) upCompose(cmd *cobra.Command, files []string, f composeFlags, lenient, adopt, build bool, w waitFlags) error {
	p, err := a.loadCompose(cmd.Context(), files, f, lenient)
	if err == nil {
		err = a.checkOwners(p.Sets, p.Jobs)
	}
	if err != nil {
		return err
	}
	a.warnOrphans(p)
	if err := a.createHostPaths(p); err != nil {
		return err
	}
	if err := a.store().WriteConfigFiles(p.ConfigFiles); err != nil {
		return err
	}
	ctx, cancel := w.bound(cmd.Context())
	defer cancel()
	if err := a.buildImages(ctx, p.Builds, build); err != nil {
		return err
	}
	if err := a.preflight(ctx, p.Sets); err != nil {
		return err
	}
	adopted, err := a.claim(ctx, p.Sets, adopt)
	if err != nil {
		return err
	}
	names := setNames(p.Sets)
	a.mark(names...)
	cause := "ostset up -f " + strings.Join(files, " -f ")
	waited := map[string]bool{}
	rolled := map[string]bool{}
	var waitFor func(name string, deps []compose.Dep) error
	waitFor = func(name string, deps []compose.Dep) error {
		for _, d := range deps {
			if waited[d.Set] {
				continue
			}
			fmt.Fprintf(a.stdout, "%s: waiting for %s (%s)\n", name, d.Set, d.Condition)
			if i := slices.IndexFunc(p.Jobs, func(j config.Set) bool { return j.Name == d.Set }); i >= 0 {
				if err := waitFor(d.Set, p.Deps[d.Set]); err != nil {
					return err
				}
				if err := a.runJob(ctx, p.Jobs[i]); err != nil {
					return err
				}
			} else if err := a.waitAll(ctx, w.timeout, []string{d.Set}); err != nil {
				return err
			} else {
				// Its rollout is told: the final wait follows it from here,
				// not again from before this command's change.
				a.mark(d.Set)
			}
			waited[d.Set] = true
		}
		return nil
	}
	for _, s := range p.Sets {
		if err := waitFor(s.Name, p.Deps[s.Name]); err != nil {
			return err
		}
		changed, err := a.applyCompose(ctx, s, cause)
		if err != nil {
			return err
		}
		rolled[s.Name] = changed
		if err := a.adopt(ctx, s.Name, adopted[s.Name]); err != nil {
			return err
		}
		if err := a.restartForDeps(ctx, s.Name, p.Deps[s.Name], rolled, changed); err != nil {
			return err
		}
	}
	return w.then(cmd.Context(), a, nil, names...)
}

// checkOwners refuses, before anything is done, sets whose names are stored
// sets of another compose project or of set files (for a compose project's
// set, and the other way round), and jobs whose names are stored sets
// (state.CheckOwner).
func (a *app) checkOwners(sets, jobs []config.Set) error {
	for i, s := range append(slices.Clone(sets), jobs...) {
		st, err := a.store().Load(s.Name)
		if errors.Is(err, state.ErrUnknownSet) {
			continue
		} else if err != nil {
			return err
		}
		if err := state.CheckOwner(st.Spec, s, i >= len(sets)); err != nil {
			return invalid(err)
		}
	}
	return nil
}

// createHostPaths makes the missing sources of the bind mounts that compose
// creates (Project.HostPaths) on the engine's host, when it can see it.
func (a *app) createHostPaths(p *compose.Project) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	hc, ok := c.Runtime.(engine.HostChecker)
	if !ok {
		return nil
	}
	made, err := p.CreateHostPaths(hc.BindSourceExists)
	for _, d := range made {
		fmt.Fprintf(a.stdout, "%s: created (a bind mount's source, as compose creates it)\n", d)
	}
	return err
}

// runJob runs a service that others wait for with
// service_completed_successfully, once, to completion (Controller.RunJob).
func (a *app) runJob(ctx context.Context, job config.Set) error {
	c, err := a.controller()
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: running %s to completion\n", job.Name, plan.ReplicaName(job.Name, job.FirstOrdinal()))
	if err := c.RunJob(ctx, job); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: completed\n", job.Name)
	return nil
}

// warnOrphans names the project's stored sets that no service of the files
// makes any more (a service removed or renamed): up leaves them as they are.
func (a *app) warnOrphans(p *compose.Project) {
	stored, err := a.projectSets(p.Name)
	if err != nil {
		return
	}
	for _, name := range stored {
		if !slices.ContainsFunc(p.Sets, func(s config.Set) bool { return s.Name == name }) {
			a.warn(fmt.Sprintf("%s: a set of project %s that no service of the files makes; 'ostset down %s' deletes it", name, p.Name, name))
		}
	}
}

// applyCompose applies a set and tells whether it got a new revision.
func (a *app) applyCompose(ctx context.Context, s config.Set, cause string) (bool, error) {
	before, err := a.store().Load(s.Name)
	had := err == nil
	if err := a.apply(ctx, s, cause); err != nil {
		return false, err
	}
	after, err := a.store().Load(s.Name)
	if err != nil {
		return false, err
	}
	return had && after.UpdateRevision != before.UpdateRevision, nil
}

// restartForDeps re-rolls a set whose dependency with restart: true was
// rolled by this up, unless the set itself got a new revision anyway.
func (a *app) restartForDeps(ctx context.Context, name string, deps []compose.Dep, rolled map[string]bool, changed bool) error {
	if changed {
		return nil
	}
	for _, d := range deps {
		if !d.Restart || !rolled[d.Set] {
			continue
		}
		return a.change(ctx, name, func(st *state.State) (string, error) {
			r, err := st.Restart("ostset up: "+d.Set+" was rolled (depends_on restart: true)", time.Now())
			if err != nil {
				return "", err
			}
			a.madeRevision(name, r.Name)
			return "restarting after " + d.Set + ": new revision " + r.Name, nil
		})
	}
	return nil
}

// projectSets lists the stored sets of a compose project, dependents before
// the sets they depend on: the order in which down deletes them.
func (a *app) projectSets(project string) ([]string, error) {
	names, err := a.store().List()
	if err != nil {
		return nil, err
	}
	deps := map[string][]string{}
	var sets []string
	for _, n := range names {
		st, err := a.store().Load(n)
		if err != nil || st.Spec.Template.Labels[compose.LabelProject] != project {
			continue
		}
		sets = append(sets, n)
		if d := st.Spec.Template.Labels[compose.LabelDependsOn]; d != "" {
			deps[n] = strings.Split(d, ",")
		}
	}
	slices.Sort(sets)
	var order []string
	done := map[string]bool{}
	var visit func(n string)
	visit = func(n string) {
		if done[n] {
			return
		}
		done[n] = true
		for _, d := range deps[n] {
			if slices.Contains(sets, d) {
				visit(d)
			}
		}
		order = append(order, n)
	}
	for _, n := range sets {
		visit(n)
	}
	slices.Reverse(order)
	return order, nil
}

// downProject deletes the sets of a compose project in reverse dependency
// order, then what else carries the project's label: the containers of its
// jobs (an up cut short leaves one running) and the networks made for it.
func (a *app) downProject(ctx context.Context, project string, removeVolumes bool) error {
	names, err := a.projectSets(project)
	if err != nil {
		return err
	}
	c, err := a.controller()
	if err != nil {
		return err
	}
	for _, name := range names {
		if err := c.Delete(ctx, name, removeVolumes); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s: deleted\n", name)
	}
	lines, err := c.RemoveLabelled(ctx, compose.LabelProject, project)
	for _, l := range lines {
		fmt.Fprintf(a.stdout, "%s: %s\n", project, l)
	}
	if err == nil && len(names)+len(lines) == 0 {
		return fmt.Errorf("compose project %q: %w", project, state.ErrUnknownSet)
	}
	return err
}

// buildImages builds the images of services with build:, when missing or
// when --build asks for it.
func (a *app) buildImages(ctx context.Context, builds []compose.Build, always bool) error {
	if len(builds) == 0 {
		return nil
	}
	rt, err := a.runtime()
	if err != nil {
		return err
	}
	for _, b := range builds {
		if !always {
			exists, err := rt.ImageExists(ctx, b.Image)
			if err != nil {
				return err
			}
			if exists {
				continue
			}
		}
		fmt.Fprintf(a.stdout, "%s: building %s from %s\n", b.Set, b.Image, b.Context)
		id, err := rt.BuildImage(ctx, docker.BuildOptions{
			Image: b.Image, Context: b.Context, Dockerfile: b.Dockerfile, Args: b.Args, Target: b.Target,
			Labels: b.Labels, NoCache: b.NoCache, Pull: b.Pull,
		}, func(line string) { fmt.Fprintf(a.stdout, "%s: build: %s\n", b.Set, line) })
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s: built %s (%s)\n", b.Set, b.Image, id)
	}
	return nil
}

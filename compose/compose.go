// Package compose reads compose files with the reference loader (compose-go)
// and maps each service onto a set. Nothing a service asks for is dropped in
// silence: what ostset cannot map is listed, one line per field.
package compose

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// Labels every set of a compose project carries in its template, so that
// 'ostset down -p PROJECT' finds the project's sets and their order without
// the file, and a replica gets the per-ordinal DNS names of its service.
const (
	LabelProject   = config.LabelComposeProject
	LabelService   = config.LabelComposeService
	LabelAliases   = config.LabelComposeAliases
	LabelDependsOn = "ostset.compose.depends-on"
)

// Options are the loader flags of 'docker compose', with its meanings.
type Options struct {
	Files       []string // -f, merged in order
	ProjectName string   // -p; else name: of the file, else the directory
	EnvFiles    []string // --env-file; else .env of the project directory
	Profiles    []string // --profile
	// EngineAPI is the API version of the engine ("1.41"), which decides
	// whether healthcheck.start_interval can be mapped (1.44 and later);
	// "" when unknown: it is listed.
	EngineAPI string
	// ConfigDir is where the files of the services' secrets and configs are
	// kept (Project.ConfigFiles): the state directory's, as for the files of
	// a Kubernetes Secret volume.
	ConfigDir string
	// Warn, if set, is told the loader's warnings (a variable not set...),
	// one line each.
	Warn func(string)
}

// Project is a compose project mapped onto sets.
type Project struct {
	Name string
	// Sets are in dependency order: a set comes after the sets it depends on.
	Sets []config.Set
	// Jobs are the services others wait for with
	// service_completed_successfully: each runs to completion once per up,
	// before the first set that waits for it (as a set of one replica that is
	// not kept running; see Dep).
	Jobs []config.Set
	// Deps are the dependencies of each set (by set name) that order 'up'.
	Deps map[string][]Dep
	// Builds are the images to build before the sets are applied.
	Builds []Build
	// HostPaths are the sources of bind mounts that compose creates as
	// directories when they are missing (the short syntax, or
	// bind.create_host_path): see CreateHostPaths.
	HostPaths []string
	// ConfigFiles are the files of the services' secrets and configs, to
	// write under Options.ConfigDir before the sets are applied: the engine
	// copies them into each replica it creates.
	ConfigFiles []config.ConfigFile
	// Unmapped lists, one line per field, what ostset cannot map:
	// "FILE:LINE: services.db.field: why".
	Unmapped []string
	// Warnings are mapped fields whose meaning differs from docker compose's.
	Warnings []string
}

// Dep is a dependency of a set on another set of the project.
type Dep struct {
	Set       string // the set depended on
	Condition string // service_started, service_healthy or service_completed_successfully (Set is a job)
	Restart   bool   // re-roll the dependent when the dependency is rolled
}

// Build is an image of a service to build through the engine's build API.
type Build struct {
	Set        string
	Image      string
	Context    string // absolute directory
	Dockerfile string // relative to Context
	Args       map[string]*string
	Target     string
	Labels     map[string]string
	NoCache    bool
	Pull       bool
}

// IsComposeFile tells whether data is a compose file: a YAML mapping with a
// top-level services: key. A set file has no such key.
func IsComposeFile(data []byte) bool {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil || len(doc.Content) == 0 {
		return false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "services" {
			return true
		}
	}
	return false
}

// Load reads the compose files as 'docker compose' does (several -f merged,
// .env and --env-file, interpolation, extends, include, profiles, the project
// name) and maps every service onto a set. Problems of the files themselves
// are an error; fields ostset cannot map are listed in Project.Unmapped.
func Load(ctx context.Context, opt Options) (*Project, error) {
	defer routeWarnings(opt.Warn)()
	// The order of docker compose's ProjectOptions.ToProject.
	fns := []cli.ProjectOptionsFn{cli.WithOsEnv, cli.WithEnvFiles(opt.EnvFiles...), cli.WithDotEnv, cli.WithProfiles(opt.Profiles)}
	if opt.ProjectName != "" {
		fns = append(fns, cli.WithName(opt.ProjectName))
	}
	fns = append(fns, cli.WithResolvedPaths(true))
	po, err := cli.NewProjectOptions(opt.Files, fns...)
	if err != nil {
		return nil, err
	}
	p, err := po.LoadProject(ctx)
	if err != nil {
		return nil, err
	}
	return mapProject(p, newLines(opt.Files), opt.EngineAPI, opt.ConfigDir)
}

// SetName is the name of the set of a service: "<project>-<service>", so that
// two projects with a db service do not collide.
func SetName(project, service string) string {
	return strings.ToLower(strings.ReplaceAll(project+"-"+service, "_", "-"))
}

// mapProject maps a loaded project onto sets. lines finds where a field is written,
// for the list of what is not mapped (nil: files only).
func mapProject(p *types.Project, lines *fieldLines, engineAPI, configDir string) (*Project, error) {
	out := &Project{Name: p.Name, Deps: map[string][]Dep{}}
	order, err := dependencyOrder(p)
	if err != nil {
		return nil, err
	}
	oneShots := oneShotServices(p)
	var problems []string
	for _, name := range order {
		svc := p.Services[name]
		m := mapper{p: p, svc: svc, lines: lines, oneShots: oneShots, engineAPI: engineAPI, configDir: configDir}
		s := m.mapSet()
		problems = append(problems, m.problems...)
		out.ConfigFiles = append(out.ConfigFiles, m.files...)
		if err := s.Validate(); err != nil {
			problems = append(problems, fmt.Sprintf("%s: services.%s: %v", lines.file(name), name, err))
		}
		// As the set file loader does: the engine takes a set with its
		// defaults (an update strategy left empty would roll nothing).
		s.ApplyDefaults()
		if oneShots[name] {
			s.Replicas = new(1)
			s.Template.RestartPolicy = "no"
			out.Jobs = append(out.Jobs, s)
		} else {
			out.Sets = append(out.Sets, s)
		}
		out.Deps[s.Name] = m.deps
		if m.build != nil {
			out.Builds = append(out.Builds, *m.build)
		}
		for _, h := range m.hostPaths {
			if !slices.Contains(out.HostPaths, h) {
				out.HostPaths = append(out.HostPaths, h)
			}
		}
		out.Unmapped = append(out.Unmapped, m.unmapped...)
		out.Warnings = append(out.Warnings, m.warnings...)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return out, nil
}

// dependencyOrder lists the services so that each comes after those it
// depends on, by name among equals (stable output).
func dependencyOrder(p *types.Project) ([]string, error) {
	var order []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(name string, path []string) error
	visit = func(name string, path []string) error {
		switch state[name] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("depends_on: a cycle: %s", strings.Join(append(path, name), " -> "))
		}
		state[name] = 1
		svc, ok := p.Services[name]
		if !ok {
			return nil // a dependency left out by profiles; compose-go reports required ones
		}
		for _, dep := range slices.Sorted(maps.Keys(svc.DependsOn)) {
			if err := visit(dep, append(path, name)); err != nil {
				return err
			}
		}
		state[name] = 2
		order = append(order, name)
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(p.Services)) {
		if err := visit(name, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// oneShotServices are the services another waits for with
// service_completed_successfully: they run to completion, as jobs.
func oneShotServices(p *types.Project) map[string]bool {
	out := map[string]bool{}
	for _, svc := range p.Services {
		for dep, d := range svc.DependsOn {
			if d.Condition == types.ServiceConditionCompletedSuccessfully {
				out[dep] = true
			}
		}
	}
	return out
}

// fieldLines finds the line of a field of a service in the compose files.
type fieldLines struct {
	files []string
	docs  []*yaml.Node
}

func newLines(files []string) *fieldLines {
	l := &fieldLines{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 {
			continue
		}
		l.files = append(l.files, f)
		l.docs = append(l.docs, doc.Content[0])
	}
	return l
}

// where is "FILE:LINE" of services.<service>.<path...> in the last file that
// writes it, else the file that defines the service, else the first file.
func (l *fieldLines) where(service string, path ...string) string {
	if l == nil || len(l.files) == 0 {
		return "compose"
	}
	full := append([]string{"services", service}, path...)
	for i := len(l.docs) - 1; i >= 0; i-- {
		for n := len(full); n >= 2; n-- {
			if line := lookup(l.docs[i], full[:n]); line > 0 {
				return fmt.Sprintf("%s:%d", l.files[i], line)
			}
		}
	}
	return l.files[0]
}

func (l *fieldLines) file(service string) string { return l.where(service) }

func lookup(n *yaml.Node, path []string) int {
	line := 0
	for _, key := range path {
		for n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if n == nil || n.Kind != yaml.MappingNode {
			return 0
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, next = n.Content[i].Line, n.Content[i+1]
			}
		}
		if next == nil {
			return 0
		}
		n = next
	}
	return line
}

// CreateHostPaths makes, as docker compose does, the directories of
// HostPaths that are missing on the engine's host, and returns those it made.
// exists tells whether a path exists there (known false: it cannot tell, an
// engine on another host, which then refuses or creates the source itself):
// nothing is made where it cannot tell.
func (p *Project) CreateHostPaths(exists func(path string) (exists, known bool)) ([]string, error) {
	var made []string
	for _, h := range p.HostPaths {
		if there, known := exists(h); there || !known {
			continue
		}
		if err := os.MkdirAll(h, 0o755); err != nil {
			return made, fmt.Errorf("create the bind mount source %s: %w", h, err)
		}
		made = append(made, h)
	}
	return made, nil
}

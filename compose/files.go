package compose

import (
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
)

// A service's secrets and configs are files, as compose gives them: each at
// its target (a secret at /run/secrets/<name> by default, a config at
// /<name>; a relative target is in /run/secrets, or in / for a config),
// read-only, with its mode (0444 by default), uid and gid. The file (file:),
// the variable (environment:) or the text (content:) is read when the
// project is loaded and kept under the state directory, as the files of a
// Kubernetes Secret volume are; each replica gets its copy through the
// engine's API when it is created (engine.Controller.giveFiles). The files of
// one directory of the container are one volume of the set: a bind mount of
// their directory under ConfigDir, which the engine replaces with the files.

// secretFiles maps the service's secrets and configs.
func (m *mapper) secretFiles() {
	byDir := map[string][]config.ConfigFile{}
	add := func(field string, i int, ref types.FileReferenceConfig, obj types.FileObjectConfig, ok bool, target string) {
		where := []string{field, strconv.Itoa(i)}
		if !ok {
			m.problem(where, "%s %q is not defined in the top-level %s", strings.TrimSuffix(field, "s"), ref.Source, field)
			return
		}
		if bool(obj.External) || obj.Driver != "" || obj.TemplateDriver != "" {
			m.unmap(fmt.Sprintf("%s %q is external or made by a driver: ostset gives files, from file:, environment: or content:", strings.TrimSuffix(field, "s"), ref.Source), where...)
			return
		}
		data, err := m.fileData(obj)
		if err != nil {
			m.problem(where, "%v", err)
			return
		}
		f := config.ConfigFile{Data: data, Mode: 0o444, Secret: field == "secrets"}
		if ref.Mode != nil {
			f.Mode = uint32(*ref.Mode) & 0o7777
		}
		for _, id := range []struct {
			s   string
			to  *int
			key string
		}{{ref.UID, &f.UID, "uid"}, {ref.GID, &f.GID, "gid"}} {
			if id.s == "" {
				continue
			}
			n, err := strconv.Atoi(id.s)
			if err != nil || n < 0 {
				m.problem(where, "%s %q is not a number", id.key, id.s)
				return
			}
			*id.to = n
		}
		dir, name := path.Split(path.Clean(target))
		dir = path.Clean(dir)
		if name == "" || dir == "/" {
			m.problem(where, "target %q: ostset gives a file in a directory other than /", target)
			return
		}
		f.Name = name
		if slices.ContainsFunc(byDir[dir], func(o config.ConfigFile) bool { return o.Name == name }) {
			m.problem(where, "target %s is given twice", target)
			return
		}
		byDir[dir] = append(byDir[dir], f)
	}
	for i, s := range m.svc.Secrets {
		obj, ok := m.p.Secrets[s.Source]
		target := s.Target
		if target == "" {
			target = s.Source
		}
		if !path.IsAbs(target) {
			target = "/run/secrets/" + target
		}
		add("secrets", i, types.FileReferenceConfig(s), types.FileObjectConfig(obj), ok, target)
	}
	for i, c := range m.svc.Configs {
		obj, ok := m.p.Configs[c.Source]
		target := c.Target
		if target == "" {
			target = c.Source
		}
		if !path.IsAbs(target) {
			target = "/" + target
		}
		add("configs", i, types.FileReferenceConfig(c), types.FileObjectConfig(obj), ok, target)
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		if slices.ContainsFunc(m.set.Template.VolumeMounts, func(v config.VolumeMount) bool { return v.Target == dir }) {
			m.problem([]string{"secrets"}, "the files at %s: a volume of the service is mounted there", dir)
			continue
		}
		src := filepath.Join(m.configDir, m.set.Name, "compose"+strings.ReplaceAll(dir, "/", "~"))
		for _, f := range byDir[dir] {
			f.Dir = src
			m.files = append(m.files, f)
		}
		m.set.Template.VolumeMounts = append(m.set.Template.VolumeMounts, config.VolumeMount{Source: src, Target: dir, ReadOnly: true})
	}
}

// fileData is the text of a secret or config: its file, its variable (in
// the project's environment: the shell's, then .env) or its content.
func (m *mapper) fileData(obj types.FileObjectConfig) ([]byte, error) {
	switch {
	case obj.File != "":
		data, err := os.ReadFile(obj.File)
		if err != nil {
			return nil, fmt.Errorf("read its file: %w", err)
		}
		return data, nil
	case obj.Environment != "":
		v, ok := m.p.Environment[obj.Environment]
		if !ok {
			return nil, fmt.Errorf("the variable %s is not set", obj.Environment)
		}
		return []byte(v), nil
	}
	return []byte(obj.Content), nil
}

// ForKubernetes returns the project's sets as a cluster would run them, and
// what a cluster cannot do as the file says. A named volume of a one-replica
// service becomes its volume claim (a cluster has no Docker volume shared by
// name; with one replica the claim holds the same data); a named volume
// shared by several replicas, or mounted read-only, stays and is reported by
// the export. An image built from the file (build:) is named: a cluster
// pulls its images and cannot pull one built on this host. Secrets become
// Secret objects (kubeObjects), returned as YAML documents to write before
// the sets.
func (p *Project) ForKubernetes() (sets []config.Set, objects []byte, warnings []string) {
	var objs []*yaml.Node
	for _, s := range p.Sets {
		o, w := p.kubeObjects(&s)
		objs, warnings = append(objs, o...), append(warnings, w...)
		s.VolumeClaimTemplates = slices.Clone(s.VolumeClaimTemplates)
		if *s.Replicas == 1 {
			var mounts []config.VolumeMount
			for _, v := range s.Template.VolumeMounts {
				name := claimName(p.Name, v.Source)
				taken := slices.ContainsFunc(s.VolumeClaimTemplates, func(c config.VolumeClaimTemplate) bool { return c.Name == name })
				if strings.HasPrefix(v.Source, "/") || v.ReadOnly || name == "" || taken {
					mounts = append(mounts, v)
					continue
				}
				s.VolumeClaimTemplates = append(s.VolumeClaimTemplates, config.VolumeClaimTemplate{Name: name, MountPath: v.Target})
			}
			s.Template.VolumeMounts = mounts
		}
		sets = append(sets, s)
	}
	for _, b := range p.Builds {
		warnings = append(warnings, fmt.Sprintf("%s: image %s is built on this host (build:): a cluster cannot pull it; push it to a registry the cluster pulls from", b.Set, b.Image))
	}
	objects, err := EncodeObjects(objs)
	if err != nil {
		warnings = append(warnings, "the Secrets and ConfigMaps: "+err.Error())
	}
	return sets, objects, warnings
}

// claimName is the claim of a named volume: its name without the project's
// prefix, as a DNS label ("shop_db_data": db-data).
func claimName(project, volume string) string {
	return strings.TrimPrefix(anonymousName(strings.TrimPrefix(volume, project+"_")), "anon-")
}

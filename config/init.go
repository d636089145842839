package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/ostset/ostset/config/envref"
)

// InitContainer runs to completion, in order with the others of the template,
// before each new replica container starts (Kubernetes' init containers). It
// sees what the replica sees: its per-ordinal volumes, its OSTSET_* environment
// and its hostname.
type InitContainer struct {
	Name            string                `yaml:"name" json:"name"`
	Image           string                `yaml:"image" json:"image"`
	ImagePullPolicy string                `yaml:"imagePullPolicy" json:"imagePullPolicy,omitempty"`
	Command         []string              `yaml:"command" json:"command,omitempty"`
	Args            []string              `yaml:"args" json:"args,omitempty"`
	Env             map[string]string     `yaml:"env" json:"env,omitempty"`
	EnvRefs         map[string]envref.Ref `yaml:"envRefs,omitempty" json:"envRefs,omitempty"` // as Template.EnvRefs
	WorkingDir      string                `yaml:"workingDir" json:"workingDir,omitempty"`
	User            string                `yaml:"user" json:"user,omitempty"`
	VolumeMounts    []VolumeMount         `yaml:"volumeMounts" json:"volumeMounts,omitempty"`
	Resources       Resources             `yaml:"resources" json:"resources,omitzero"`
}

// PullPolicy is the init container's imagePullPolicy, IfNotPresent when not
// given (as for the main container, see Template.PullPolicy).
func (c InitContainer) PullPolicy() string {
	if c.ImagePullPolicy == "" {
		return PullIfNotPresent
	}
	return c.ImagePullPolicy
}

// InitNames lists the names of the template's init containers, in order.
func (t Template) InitNames() []string {
	var names []string
	for _, c := range t.InitContainers {
		names = append(names, c.Name)
	}
	return names
}

func (c InitContainer) clone() InitContainer {
	c.Command = slices.Clone(c.Command)
	c.Args = slices.Clone(c.Args)
	c.Env, c.EnvRefs = maps.Clone(c.Env), maps.Clone(c.EnvRefs)
	c.VolumeMounts = slices.Clone(c.VolumeMounts)
	return c
}

func cloneInits(cs []InitContainer) []InitContainer {
	cs = slices.Clone(cs)
	for i := range cs {
		cs[i] = cs[i].clone()
	}
	return cs
}

// ExpandInit returns a copy of c with the replica's values expanded in every
// string, as Expand does for the main container (name, image and the other
// fields checked at load stay as written). path names c in errors
// ("template.initContainers[0]"). c is not modified.
func ExpandInit(c InitContainer, path string, v ReplicaVars) (InitContainer, error) {
	c = c.clone()
	err := ExpandFields(&c, path, v)
	return c, err
}

// initContainers checks template.initContainers: each is a container of its
// own, named uniquely, that also mounts the per-ordinal volumes at their
// mountPaths.
func (v *validator) initContainers(s Set) {
	names := map[string]string{}
	for i, c := range s.Template.InitContainers {
		p := fmt.Sprintf("template.initContainers[%d]", i)
		if v.dnsLabel(p+".name", c.Name) {
			switch other, dup := names[c.Name]; {
			case dup:
				v.add(p+".name", "%q is already used by %s", c.Name, other)
			case strings.Trim(c.Name, "0123456789") == "":
				// web-1-init-0 would read as ordinal 0 of a set named web-1-init.
				v.add(p+".name", "%q must contain a letter or '-', not only digits", c.Name)
			}
			names[c.Name] = p
		}
		v.image(p+".image", c.Image)
		if c.ImagePullPolicy != "" {
			v.oneOf(p+".imagePullPolicy", c.ImagePullPolicy, PullIfNotPresent, PullAlways, PullNever)
		}
		v.initEnv(p, c.Env)
		v.envRefs(p, c.Env, c.EnvRefs)
		v.initMounts(p, c.VolumeMounts, s.VolumeClaimTemplates)
		v.resources(p+".resources", c.Resources, false)
	}
}

// initEnv applies the main container's rules to an init container's env.
func (v *validator) initEnv(p string, env map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(env)) {
		kp := p + ".env." + k
		switch {
		case k == "" || strings.Contains(k, "="):
			v.add(kp, "invalid variable name %q: must be non-empty and must not contain '='", k)
		case strings.HasPrefix(k, "OSTSET_"):
			v.add(kp, "the OSTSET_ prefix is reserved for the variables ostset sets")
		}
	}
}

// initMounts checks an init container's mounts as the main container's, and
// against the per-ordinal volumes it also mounts: Docker refuses two mounts on
// one path.
func (v *validator) initMounts(p string, ms []VolumeMount, claims []VolumeClaimTemplate) {
	mounts := map[string]string{}
	for i, c := range claims {
		if path.IsAbs(c.MountPath) {
			mounts[path.Clean(c.MountPath)] = fmt.Sprintf("volumeClaimTemplates[%d].mountPath", i)
		}
	}
	for i, m := range ms {
		mp := fmt.Sprintf("%s.volumeMounts[%d]", p, i)
		if m.Source == "" {
			v.add(mp+".source", "is required")
		}
		if v.absolutePath(mp+".target", m.Target) {
			v.uniqueMount(mounts, mp+".target", m.Target)
		}
	}
}

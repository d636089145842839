package kube

import (
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
)

// envRef keeps a variable whose value is a key of a ConfigMap or Secret
// (valueFrom configMapKeyRef or secretKeyRef) as a reference, as a pod spec
// does: the value is written to the state directory, to a file only its
// owner reads, and the engine gives it to each replica it creates; the set
// holds the reference and the value's digest, so that describe, export,
// events and labels never show the value, and a new value still rolls the
// set. A later $(NAME) in env, command or args gets a ConfigMap's value, as
// in Kubernetes; a Secret's is refused (see secretUse).
func (p *mapper) envRef(f *containerFields, name string, ref envref.Ref, value string, line int, defined map[string]string) {
	ref.Digest = envref.Digest([]byte(value))
	file := ref.Path(p.k.configDir, p.set.Name)
	p.k.files = append(p.k.files, config.ConfigFile{Dir: filepath.Dir(file), Name: filepath.Base(file), Data: []byte(value), Mode: 0o600})
	if f.EnvRefs == nil {
		f.EnvRefs = map[string]envref.Ref{}
	}
	f.EnvRefs[name] = ref
	delete(f.Env, name)
	if ref.Kind == envref.Secret {
		if f.secretVars == nil {
			f.secretVars = map[string]bool{}
		}
		f.secretVars[name] = true
		delete(defined, name)
	} else {
		delete(f.secretVars, name)
		defined[name] = escapeTemplate(value)
	}
	p.mark(f.setPath+".envRefs."+name, line)
}

// secretUse refuses a $(NAME) in s (at n, path) that refers to a variable
// from a Secret: Kubernetes would write the Secret's value there, which
// ostset keeps out of the set; the container's shell can read the variable.
func (p *mapper) secretUse(n *yaml.Node, path, s string, secretVars map[string]bool) {
	if len(secretVars) == 0 || n == nil {
		return
	}
	for _, m := range kubeRefRe.FindAllStringSubmatch(s, -1) {
		if m[1] != "" && secretVars[m[1]] {
			p.k.fail(p.file, n, path, fmt.Sprintf("$(%s) would write the value of a Secret into the set, which ostset keeps out of it: read the variable in the container instead (sh -c '... \"$%s\"')", m[1], m[1]))
			return
		}
	}
}

package present

import (
	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
)

// DescribedSpec is s as describe shows it: a variable from a key of a Secret
// or ConfigMap is in env, worded as kubectl describe words it, without the
// digest of its value.
func DescribedSpec(s config.Set) config.Set {
	s = s.Clone()
	s.Template.Env, s.Template.EnvRefs = describedEnv(s.Template.Env, s.Template.EnvRefs), nil
	for i := range s.Template.InitContainers {
		c := &s.Template.InitContainers[i]
		c.Env, c.EnvRefs = describedEnv(c.Env, c.EnvRefs), nil
	}
	return s
}

func describedEnv(env map[string]string, refs map[string]envref.Ref) map[string]string {
	if len(refs) == 0 {
		return env
	}
	if env == nil {
		env = map[string]string{}
	}
	for name, r := range refs {
		env[name] = r.String()
	}
	return env
}

// Package lifecycle holds a replica's lifecycle hooks, as Kubernetes'
// lifecycle handlers and compose's post_start and pre_stop: commands run in
// the container after ostset starts it and before ostset stops it. It
// imports nothing of ostset.
package lifecycle

import (
	"fmt"
	"maps"
	"slices"
)

// Lifecycle are the hooks of a replica: PostStart each time ostset has
// started its container, PreStop before ostset stops it (a scale-down, a
// rolling replacement, a delete), within its grace period.
type Lifecycle struct {
	PostStart []Hook `yaml:"postStart" json:"postStart,omitempty"`
	PreStop   []Hook `yaml:"preStop" json:"preStop,omitempty"`
}

// Hook is a command run in the container as docker exec runs it.
type Hook struct {
	Command    []string          `yaml:"command" json:"command"`
	User       string            `yaml:"user" json:"user,omitempty"`
	Privileged bool              `yaml:"privileged" json:"privileged,omitempty"`
	WorkingDir string            `yaml:"workingDir" json:"workingDir,omitempty"`
	Env        map[string]string `yaml:"env" json:"env,omitempty"`
}

// Empty says whether l has no hook.
func (l *Lifecycle) Empty() bool { return l == nil || len(l.PostStart) == 0 && len(l.PreStop) == 0 }

// Clone is a deep copy of l.
func (l *Lifecycle) Clone() *Lifecycle {
	if l == nil {
		return nil
	}
	c := &Lifecycle{}
	for _, h := range l.PostStart {
		c.PostStart = append(c.PostStart, h.clone())
	}
	for _, h := range l.PreStop {
		c.PreStop = append(c.PreStop, h.clone())
	}
	return c
}

func (h Hook) clone() Hook {
	h.Command, h.Env = slices.Clone(h.Command), maps.Clone(h.Env)
	return h
}

// Hashed is l as the revision hash counts it: nil when it has no hook, so
// that a set without hooks keeps the hash it had before they existed.
func (l *Lifecycle) Hashed() *Lifecycle {
	if l.Empty() {
		return nil
	}
	return l
}

// Problem is what is wrong with a field, by its path under path.
type Problem struct{ Path, Message string }

// Check reports the hooks that run no command, and variables with no name.
func (l *Lifecycle) Check(path string) []Problem {
	if l == nil {
		return nil
	}
	var out []Problem
	for _, hooks := range []struct {
		path string
		list []Hook
	}{{path + ".postStart", l.PostStart}, {path + ".preStop", l.PreStop}} {
		for i, h := range hooks.list {
			p := fmt.Sprintf("%s[%d]", hooks.path, i)
			if len(h.Command) == 0 {
				out = append(out, Problem{p + ".command", "a hook runs a command: give one"})
			}
			if _, ok := h.Env[""]; ok {
				out = append(out, Problem{p + ".env", "a variable needs a name"})
			}
		}
	}
	return out
}

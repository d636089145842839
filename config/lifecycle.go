package config

import (
	"fmt"
	"maps"
	"slices"
)

// Lifecycle are commands run in a replica's container, as Kubernetes'
// lifecycle handlers and compose's post_start and pre_stop hooks: PostStart
// each time ostset has started it, PreStop before ostset stops it (a
// scale-down, a rolling replacement, a delete), within its grace period.
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

func (l *Lifecycle) clone() *Lifecycle {
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

// hashLifecycle is the lifecycle as hashed: absent when it has no hook, so
// that a set without hooks keeps the hash it had before they existed.
func hashLifecycle(l *Lifecycle) *Lifecycle {
	if l == nil || len(l.PostStart) == 0 && len(l.PreStop) == 0 {
		return nil
	}
	return l
}

// lifecycle checks the hooks: each runs a command.
func (v *validator) lifecycle(l *Lifecycle) {
	if l == nil {
		return
	}
	for _, hooks := range []struct {
		path string
		list []Hook
	}{{"template.lifecycle.postStart", l.PostStart}, {"template.lifecycle.preStop", l.PreStop}} {
		for i, h := range hooks.list {
			p := fmt.Sprintf("%s[%d]", hooks.path, i)
			if len(h.Command) == 0 {
				v.add(p+".command", "a hook runs a command: give one")
			}
			for k := range h.Env {
				if k == "" {
					v.add(p+".env", "a variable needs a name")
				}
			}
		}
	}
}

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/suggest"
)

// revisionTemplate is the template of the named revision, or of the spec
// when the revision is not in the history (a replica not created yet).
func revisionTemplate(st state.State, revision string) config.Template {
	for _, r := range st.Revisions {
		if r.Name == revision {
			return r.Spec.Template
		}
	}
	return st.Spec.Template
}

// hostPorts renders the ports ordinal publishes as docker ps does:
// "16380->6379/tcp", the host port being hostPort + ordinal. A port without
// a hostPort gets one Docker picks, shown as "->6379/tcp".
func hostPorts(ports []config.Port, ordinal int) string {
	var out []string
	for _, p := range ports {
		proto := p.Protocol
		if proto == "" {
			proto = "tcp"
		}
		host := ""
		if p.HostPort != 0 {
			host = fmt.Sprint(p.HostPort + ordinal)
		}
		if p.HostIP != "" {
			host = p.HostIP + ":" + host
		}
		out = append(out, fmt.Sprintf("%s->%d/%s", host, p.ContainerPort, proto))
	}
	return strings.Join(out, ",")
}

// suggestTarget suggests the set, or the replica of a set, that arg most
// likely misspells: "web-1" for "wbe-1".
func suggestTarget(arg string, sets []string) string {
	if best := suggest.Closest(arg, sets); best != "" {
		return fmt.Sprintf(": did you mean %q?", best)
	}
	if i := strings.LastIndex(arg, "-"); i > 0 {
		if _, err := strconv.Atoi(arg[i+1:]); err == nil {
			if best := suggest.Closest(arg[:i], sets); best != "" {
				return fmt.Sprintf(": did you mean %q?", best+arg[i:])
			}
		}
	}
	return ""
}

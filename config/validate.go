package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"path"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/distribution/reference"

	"github.com/ostset/ostset/config/envref"
)

// FieldError is one validation problem: the field path as written in the set
// file ("template.ports[0].hostPort") and what is wrong with it.
type FieldError struct {
	Path    string
	Message string
}

func (e FieldError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return e.Path + ": " + e.Message
}

// Validate reports every problem with s at once (errors.Join of FieldError),
// nil when there is none. It judges s as ostset would run it, that is with
// defaults applied, without modifying s. Use it again after changing a Set in
// code (a scale, a partition).
func (s Set) Validate() error {
	var errs []error
	for _, fe := range s.validate() {
		errs = append(errs, fe)
	}
	return errors.Join(errs...)
}

var (
	dnsLabelRe      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dockerNameRe    = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_.-]*$`)
	restartPolicyRe = regexp.MustCompile(`^(no|always|unless-stopped|on-failure(:[0-9]+)?)$`)
)

const (
	maxLabelLength      = 63  // DNS-1123 label, and so container name and hostname
	maxVolumeNameLength = 255 // what Docker's volume drivers accept portably
	maxPort             = 65535
	// MaxReplicas bounds replicas: every replica is a container on one
	// engine, attached to one bridge network, which takes at most 1024
	// ports; and a per-replica template sees all of them (.Peers).
	MaxReplicas = 1000
	// MaxOrdinalStart bounds ordinals.start, so that ordinals and the host
	// ports derived from them stay small numbers.
	MaxOrdinalStart = 1_000_000_000
)

type validator struct{ errs []FieldError }

func (v *validator) add(path, format string, args ...any) {
	v.errs = append(v.errs, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (s Set) validate() []FieldError {
	s = s.Clone()
	s.ApplyDefaults()
	var v validator
	replicas := *s.Replicas
	first := min(max(s.Ordinals.Start, 0), MaxOrdinalStart)
	// The highest ordinal in use decides name lengths and port ranges.
	last := first + min(max(replicas, 1), MaxReplicas) - 1

	if v.dnsLabel("name", s.Name) {
		if n := fmt.Sprintf("%s-%d", s.Name, last); len(n) > maxLabelLength {
			v.add("name", "%q is too long: replica name %q must be at most %d characters", s.Name, n, maxLabelLength)
		}
	}
	if s.ServiceName != s.Name { // a defaulted service name would repeat the name's error
		v.dnsLabel("serviceName", s.ServiceName)
	}
	v.networks(s)
	for _, pr := range s.Template.Lifecycle.Check("template.lifecycle") {
		v.add(pr.Path, "%s", pr.Message)
	}
	v.nonNegative("replicas", replicas)
	v.atMost("replicas", replicas, MaxReplicas)
	v.oneOf("podManagementPolicy", s.PodManagementPolicy, OrderedReady, Parallel)
	v.oneOf("updateStrategy.type", s.UpdateStrategy.Type, RollingUpdate, OnDelete, Recreate)
	for _, f := range []string{"updateStrategy.rollingUpdate.partition", "updateStrategy.rollingUpdate.maxUnavailable"} {
		if s.UpdateStrategy.Type == Recreate && s.Written[f] { // as Kubernetes' validation
			v.add(f, "only allowed for updateStrategy.type RollingUpdate, not Recreate")
		}
	}
	v.nonNegative("updateStrategy.rollingUpdate.partition", s.UpdateStrategy.RollingUpdate.Partition)
	if _, err := s.UpdateStrategy.RollingUpdate.MaxUnavailable.Resolve(1); err != nil {
		v.add("updateStrategy.rollingUpdate.maxUnavailable", "%v", err)
	}
	if d := *s.UpdateStrategy.ProgressDeadlineSeconds; d <= s.MinReadySeconds {
		v.add("updateStrategy.progressDeadlineSeconds", "must be greater than minReadySeconds (%d), got %d", s.MinReadySeconds, d)
	}
	v.nonNegative("minReadySeconds", s.MinReadySeconds)
	v.nonNegative("revisionHistoryLimit", *s.RevisionHistoryLimit)
	v.nonNegative("ordinals.start", s.Ordinals.Start)
	v.atMost("ordinals.start", s.Ordinals.Start, MaxOrdinalStart)
	v.oneOf("persistentVolumeClaimRetentionPolicy.whenDeleted", s.PersistentVolumeClaimRetentionPolicy.WhenDeleted, Retain, Delete)
	v.oneOf("persistentVolumeClaimRetentionPolicy.whenScaled", s.PersistentVolumeClaimRetentionPolicy.WhenScaled, Retain, Delete)
	v.nonNegative("terminationGracePeriodSeconds", *s.TerminationGracePeriodSeconds)

	mounts := v.template(s.Template, first, last)
	v.templates(s, first, last)
	v.claims(s, last, mounts)
	v.initContainers(s)
	return v.errs
}

// templates checks every per-replica template ({{...}}) of s by expanding it
// for each replica (a set of 0 replicas as if it had 1), so that one that
// fails only for some ordinal ({{if eq .Ordinal 2}}...) is refused when the
// file is loaded, not when that replica is created (one that expands alike for
// all, see perReplica, is expanded once). Each field is reported
// once, for the first replica it fails for. The mount targets a template
// yields must be valid targets too.
func (v *validator) templates(s Set, first, last int) {
	type field struct {
		path, text string
		perReplica bool
	}
	var fields []field
	t := s.Template
	walkStrings(reflect.ValueOf(&t).Elem(), "template", func(p, str string) (string, bool) {
		if strings.Contains(str, "{{") {
			fields = append(fields, field{p, str, perReplica(str)})
		}
		return str, false
	})
	if len(fields) == 0 {
		return
	}
	s.Ordinals.Start, s.Replicas = first, ptr(last-first+1)
	vars := s.ReplicaVars(s.ServiceName, first)
	failed := map[string]bool{}
	for ord := first; ord <= last && len(failed) < len(fields); ord++ {
		vars.Ordinal, vars.Name = ord, replicaName(s.Name, ord)
		for _, f := range fields {
			if failed[f.path] || ord > first && !f.perReplica {
				continue
			}
			out, err := ExpandString(f.text, vars)
			if err == nil && strings.HasPrefix(f.path, "template.volumeMounts[") && strings.HasSuffix(f.path, ".target") {
				err = mountTargetError(out)
			}
			if err != nil {
				failed[f.path] = true
				if ord == first {
					v.add(f.path, "%v", err)
				} else {
					v.add(f.path, "replica %d: %v", ord, err)
				}
			}
		}
	}
}

// template checks the replica container and returns the mount targets it uses
// (target -> field path), for the claim checks.
func (v *validator) template(t Template, first, last int) map[string]string {
	v.image("template.image", t.Image)
	if t.ImagePullPolicy != "" {
		v.oneOf("template.imagePullPolicy", t.ImagePullPolicy, PullIfNotPresent, PullAlways, PullNever)
	}
	for _, k := range slices.Sorted(maps.Keys(t.Env)) {
		p := "template.env." + k
		switch {
		case k == "" || strings.Contains(k, "="):
			v.add(p, "invalid variable name %q: must be non-empty and must not contain '='", k)
		case strings.HasPrefix(k, "OSTSET_"):
			// ostset sets OSTSET_SET, OSTSET_ORDINAL, OSTSET_NAME and OSTSET_SERVICE itself.
			v.add(p, "the OSTSET_ prefix is reserved for the variables ostset sets")
		}
	}
	v.envRefs("template", t.Env, t.EnvRefs)
	for _, k := range slices.Sorted(maps.Keys(t.Labels)) {
		switch {
		case k == "":
			v.add("template.labels.", "label keys must not be empty")
		case strings.HasPrefix(k, "io.ostset."):
			v.add("template.labels."+k, "the io.ostset. prefix is reserved for ostset's own labels")
		}
	}
	v.ports(t.Ports, first, last)
	if h := t.Healthcheck; h != nil {
		v.healthcheck("template.healthcheck", *h)
	}
	v.probe("template.liveness", t.Liveness)
	v.probe("template.startup", t.Startup)
	mounts := map[string]string{}
	for i, m := range t.VolumeMounts {
		p := fmt.Sprintf("template.volumeMounts[%d]", i)
		if m.Source == "" {
			v.add(p+".source", "is required")
		}
		if v.absolutePath(p+".target", m.Target) {
			v.uniqueMount(mounts, p+".target", m.Target)
		}
	}
	v.settings(t, mounts)
	v.resources("template.resources", t.Resources, true)
	if !restartPolicyRe.MatchString(t.RestartPolicy) {
		v.add("template.restartPolicy", "%q must be one of no, always, unless-stopped, on-failure, on-failure:N", t.RestartPolicy)
	}
	return mounts
}

func (v *validator) ports(ports []Port, first, last int) {
	type used struct {
		path     string
		lo, hi   int
		hostIP   string
		protocol string
	}
	var published []used
	exposed := map[string]string{}
	for i, p := range ports {
		path := fmt.Sprintf("template.ports[%d]", i)
		if p.ContainerPort < 1 || p.ContainerPort > maxPort {
			v.add(path+".containerPort", "must be from 1 to %d, got %d", maxPort, p.ContainerPort)
		}
		if !v.oneOf(path+".protocol", p.Protocol, "tcp", "udp", "sctp") {
			continue
		}
		key := fmt.Sprintf("%d/%s", p.ContainerPort, p.Protocol)
		if other, dup := exposed[key]; dup {
			v.add(path+".containerPort", "%s is already listed at %s", key, other)
		}
		exposed[key] = path
		if p.HostIP != "" && net.ParseIP(p.HostIP) == nil {
			v.add(path+".hostIP", "%q is not an IP address", p.HostIP)
		}
		if p.HostPort == 0 {
			continue
		}
		if p.HostPort < 0 || p.HostPort > maxPort {
			v.add(path+".hostPort", "must be from 0 to %d, got %d", maxPort, p.HostPort)
			continue
		}
		// Ordinal i publishes on hostPort + i.
		u := used{path, p.HostPort + first, p.HostPort + last, p.HostIP, p.Protocol}
		if u.hi > maxPort {
			v.add(path+".hostPort", "replica %d would publish on port %d, above %d", last, u.hi, maxPort)
			continue
		}
		for _, o := range published {
			sameIP := o.hostIP == u.hostIP || o.hostIP == "" || u.hostIP == ""
			if sameIP && o.protocol == u.protocol && u.lo <= o.hi && o.lo <= u.hi {
				v.add(path+".hostPort", "host ports %d-%d overlap %d-%d of %s", u.lo, u.hi, o.lo, o.hi, o.path)
			}
		}
		published = append(published, u)
	}
}

// probe checks a liveness or startup probe: a healthcheck that runs
// something (not NONE), without Docker's startInterval.
func (v *validator) probe(p string, h *Healthcheck) {
	switch {
	case h == nil:
		return
	case len(h.Test) > 0 && h.Test[0] == "NONE":
		v.add(p+".test", `must start with "CMD" or "CMD-SHELL" (leave the probe out to have none)`)
	case h.StartInterval != 0:
		v.add(p+".startInterval", "is a healthcheck's: a probe runs every interval")
	}
	v.healthcheck(p, *h)
}

func (v *validator) healthcheck(p string, h Healthcheck) {
	switch {
	case len(h.Test) == 0:
		v.add(p+".test", `is required (use ["NONE"] to disable the image's healthcheck)`)
	case h.Test[0] == "NONE":
		if len(h.Test) > 1 {
			v.add(p+".test", `["NONE"] takes no arguments`)
		}
	case h.Test[0] == "CMD" || h.Test[0] == "CMD-SHELL":
		if len(h.Test) < 2 {
			v.add(p+".test", "%s needs a command after it", h.Test[0])
		}
	default:
		v.add(p+".test", `must start with "NONE", "CMD" or "CMD-SHELL", got %q`, h.Test[0])
	}
	for _, d := range []struct {
		field string
		value Duration
	}{{"interval", h.Interval}, {"timeout", h.Timeout}, {"startPeriod", h.StartPeriod}, {"startInterval", h.StartInterval}} {
		// Docker refuses 0 < d < 1ms; 0 means Docker's default.
		if d.value < 0 || (d.value > 0 && d.value < Duration(1e6)) {
			v.add(p+"."+d.field, "must be 0 or at least 1ms, got %s", d.value)
		}
	}
	v.nonNegative(p+".retries", h.Retries)
}

func (v *validator) claims(s Set, last int, mounts map[string]string) {
	names := map[string]string{}
	for i, c := range s.VolumeClaimTemplates {
		p := fmt.Sprintf("volumeClaimTemplates[%d]", i)
		if v.dnsLabel(p+".name", c.Name) {
			if other, dup := names[c.Name]; dup {
				v.add(p+".name", "%q is already used by %s", c.Name, other)
			}
			names[c.Name] = p
			vol := fmt.Sprintf("%s-%s-%d", c.Name, s.Name, last)
			if len(vol) > maxVolumeNameLength || !dockerNameRe.MatchString(vol) {
				v.add(p+".name", "volume name %q is not a valid Docker volume name of at most %d characters", vol, maxVolumeNameLength)
			}
		}
		if v.absolutePath(p+".mountPath", c.MountPath) {
			v.uniqueMount(mounts, p+".mountPath", c.MountPath)
		}
		if c.Owner != "" {
			if _, _, err := ParseOwner(c.Owner); err != nil {
				v.add(p+".owner", "%v", err)
			}
		}
	}
}

func (v *validator) dnsLabel(p, s string) bool {
	switch {
	case s == "":
		v.add(p, "is required")
	case len(s) > maxLabelLength:
		v.add(p, "%q must be at most %d characters", s, maxLabelLength)
	case !dnsLabelRe.MatchString(s):
		v.add(p, "%q must consist of lowercase letters, digits and '-', and start and end with a letter or digit", s)
	default:
		return true
	}
	return false
}

func (v *validator) oneOf(p, s string, allowed ...string) bool {
	if slices.Contains(allowed, s) {
		return true
	}
	v.add(p, "%q must be %s", s, orList(allowed))
	return false
}

func orList(words []string) string {
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func (v *validator) nonNegative(p string, n int) {
	if n < 0 {
		v.add(p, "must be >= 0, got %d", n)
	}
}

// absolutePath checks a mount target: see mountTargetError.
// image checks an image reference as docker run takes it: a name with an
// optional tag and digest ("redis:7", "ghcr.io/o/r@sha256:..."), or an image ID.
func (v *validator) image(p, ref string) {
	if ref == "" {
		v.add(p, "is required")
		return
	}
	if _, err := reference.ParseAnyReference(ref); err != nil {
		v.add(p, "%q is not a valid image reference: %v", ref, err)
	}
}

func (v *validator) atMost(p string, n, limit int) {
	if n > limit {
		v.add(p, "must be at most %d, got %d", limit, n)
	}
}

func (v *validator) absolutePath(p, s string) bool {
	if s == "" {
		v.add(p, "is required")
		return false
	}
	if strings.Contains(s, "{{") { // checked per replica once expanded (templates)
		return true
	}
	if err := mountTargetError(s); err != nil {
		v.add(p, "%v", err)
		return false
	}
	return true
}

// mountTargetError says what is wrong with a mount target in the container:
// it must be absolute, may not climb with "..", and may not be the root.
func mountTargetError(s string) error {
	switch {
	case !path.IsAbs(s):
		return fmt.Errorf("%q must be an absolute path", s)
	case slices.Contains(strings.Split(s, "/"), ".."):
		return fmt.Errorf("%q must not contain \"..\"", s)
	case path.Clean(s) == "/":
		return fmt.Errorf("%q would mount over the container's root", s)
	}
	return nil
}

// uniqueMount records a mount target: Docker refuses two mounts on one path.
func (v *validator) uniqueMount(mounts map[string]string, p, target string) {
	target = path.Clean(target)
	if other, dup := mounts[target]; dup {
		v.add(p, "%q is already mounted by %s", target, other)
		return
	}
	mounts[target] = p
}

// envRefs checks the variables of a container (at path p) whose values are
// keys of a manifest's Secrets and ConfigMaps.
func (v *validator) envRefs(p string, env map[string]string, refs map[string]envref.Ref) {
	for _, pr := range envref.Check(env, refs) {
		v.add(p+".envRefs."+pr.Name, "%s", pr.Message)
	}
}

// resources checks cpus and memory, and a main container's reservations: no
// more than its limits, as Docker and Kubernetes require.
func (v *validator) resources(p string, r Resources, main bool) {
	cpus, cErr := ParseCPUs(r.CPUs)
	memory, mErr := ParseMemory(r.Memory)
	if cErr != nil && r.CPUs != "" {
		v.add(p+".cpus", "%v", cErr)
	}
	if mErr != nil && r.Memory != "" {
		v.add(p+".memory", "%v", mErr)
	}
	if rv := r.Reservations; rv != nil && !main {
		v.add(p+".reservations", "only the replica container has reservations")
	} else if rv != nil {
		v.resources(p+".reservations", *rv, false)
		if c, err := ParseCPUs(rv.CPUs); err == nil && cErr == nil && c > cpus {
			v.add(p+".reservations.cpus", "%q is more than the limit, %q", rv.CPUs, r.CPUs)
		}
		if m, err := ParseMemory(rv.Memory); err == nil && mErr == nil && m > memory {
			v.add(p+".reservations.memory", "%q is more than the limit, %q", rv.Memory, r.Memory)
		}
	}
}

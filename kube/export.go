package kube

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
	"github.com/ostset/ostset/kube/kubenames"
	"github.com/ostset/ostset/kube/kubeprobe"
	"github.com/ostset/ostset/kube/kuberefs"
	"github.com/ostset/ostset/kube/roundtrip"
)

// NameLabel is the label that ties an exported StatefulSet, its pods and its
// headless Service together (the selector).
const NameLabel = "app.kubernetes.io/name"

// ExportAnnotation is the one annotation an export adds to the StatefulSet,
// and only when its manifest cannot say a field of the set exactly (what
// Kubernetes cannot express, templates that are more than one replica
// variable, a healthcheck a probe cannot say): that field, verbatim, in a
// set-file fragment in JSON, with the digests of what the manifest says
// there (roundtrip.Annotation). OverlayExport lays it over a set read from
// the manifest, so that importing an export gives back the set it came
// from, with the same revision.
const ExportAnnotation = roundtrip.Annotation

// The variables ostset sets in every replica, and the pod label of the
// ordinal (see kuberefs).
const (
	PodIndexLabel = kuberefs.PodIndexLabel
	EnvSet        = kuberefs.EnvSet
	EnvOrdinal    = kuberefs.EnvOrdinal
	EnvName       = kuberefs.EnvName
	EnvService    = kuberefs.EnvService
)

// RestartedAtAnnotation is the pod template annotation kubectl rollout restart
// sets; export writes ostset's restart stamp under it.
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// DefaultStorage is the storage request of an exported volume claim when none
// is given: Docker volumes have no size.
const DefaultStorage = "1Gi"

// ExportOptions are the choices Kubernetes needs that a set does not make.
type ExportOptions struct {
	// Storage is the storage request of every volume claim ("1Gi" if empty).
	Storage string
	// RestartedAt is the set's restart stamp (ostset rollout restart), if any.
	RestartedAt string
}

// Unexpressed is a field of a set that the exported manifest cannot express:
// a cluster will not do what ostset does with it.
type Unexpressed struct {
	Set    string // the set's name
	Field  string // the set-file path, "template.ports[0].hostPort"
	Reason string
}

func (u Unexpressed) String() string { return u.Set + ": " + u.Field + ": " + u.Reason }

// ExportKubernetes writes s (defaults applied) as two YAML documents: an
// apps/v1 StatefulSet and its headless v1 Service, named by serviceName. It
// also returns, in the order of the set file, the fields Kubernetes cannot
// express. s must be valid.
func ExportKubernetes(s config.Set, opt ExportOptions) ([]byte, []Unexpressed, error) {
	s = s.Clone()
	s.ApplyDefaults()
	if opt.Storage == "" {
		opt.Storage = DefaultStorage
	}
	e := &exporter{set: s, opt: opt}
	sts, svc := e.statefulSet(), e.service()
	if k := s.Kubernetes; k != nil && len(k.Annotations) > 0 {
		sts.Metadata.Annotations = maps.Clone(k.Annotations)
	}
	if e.err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Name, e.err)
	}
	var docs []*yaml.Node
	for _, obj := range []kubeObject{sts, svc} {
		var n yaml.Node
		if err := n.Encode(obj); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		docs = append(docs, &n)
	}
	stsID := roundtrip.Identity(docs[0])
	docs = restore(s.Kubernetes, append(docs, e.objects...))
	fields, digests, err := e.needed(docs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: reading the export back: %w", s.Name, err)
	}
	if len(fields) > 0 {
		v, err := roundtrip.Encode(fields, digests)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		for _, d := range docs {
			if roundtrip.Identity(d) == stsID {
				roundtrip.SetAnnotation(d, ExportAnnotation, v)
			}
		}
	}
	out, err := encodeNodes(docs)
	return out, e.lost, err
}

// encodeNodes writes the objects as YAML documents.
func encodeNodes(docs []*yaml.Node) ([]byte, error) {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	for _, n := range docs {
		if err := enc.Encode(n); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// exporter collects, while it maps one set, what is lost and what the
// annotation must carry.
type exporter struct {
	set     config.Set
	opt     ExportOptions
	lost    []Unexpressed
	kept    []keptField  // for the annotation, where the manifest does not say them
	objects []*yaml.Node // an import's other objects, as written
	err     error
}

func (e *exporter) unexpressed(field, format string, args ...any) {
	e.lost = append(e.lost, Unexpressed{Set: e.set.Name, Field: field, Reason: fmt.Sprintf(format, args...)})
}

// keep puts the set-file value v at path (field names; a map key is one
// name even with dots in it) into the annotation, as the set file writes it.
func (e *exporter) keep(v any, path ...string) {
	var generic any
	data, err := yaml.Marshal(v)
	if err == nil {
		err = yaml.Unmarshal(data, &generic)
	}
	if err != nil {
		panic("config: a set-file value does not marshal: " + err.Error()) // strings, ints, plain structs
	}
	e.kept = append(e.kept, keptField{slices.Clone(path), generic})
}

// keptField is a set-file field the annotation keeps, if the manifest does
// not say it as the set has it.
type keptField struct {
	path  []string
	value any
}

// selector selects the set's pods: the one the imported manifest had (it
// cannot change in a cluster), else the app.kubernetes.io/name label.
func (e *exporter) selector() map[string]string {
	if k := e.set.Kubernetes; k != nil && len(k.Selector) > 0 {
		return maps.Clone(k.Selector)
	}
	return map[string]string{NameLabel: e.set.Name}
}

// meta is the metadata of the StatefulSet or the Service: the namespace and
// labels the imported manifest gave it, else the selector's label.
func (e *exporter) meta(name string, labels map[string]string, kept bool) kubeMeta {
	m := kubeMeta{Name: name, Labels: labels}
	if !kept {
		m.Labels = e.selector()
	}
	if k := e.set.Kubernetes; k != nil {
		m.Namespace = k.Namespace
	}
	return m
}

func (e *exporter) statefulSet() kubeObject {
	s := e.set
	if s.Network != config.DefaultNetwork {
		e.unexpressed("network", "%q: pods share the cluster's network; the headless Service gives the DNS names", s.Network)
		e.keep(s.Network, "network")
	}
	if len(s.Networks) > 0 {
		e.unexpressed("networks", "pods share the cluster's network")
		e.keep(s.Networks, "networks")
	}
	spec := kubeStatefulSetSpec{
		ServiceName:                          s.ServiceName,
		Replicas:                             s.DesiredReplicas(),
		PodManagementPolicy:                  s.PodManagementPolicy,
		UpdateStrategy:                       e.updateStrategy(),
		MinReadySeconds:                      s.MinReadySeconds,
		RevisionHistoryLimit:                 s.RevisionHistoryLimit,
		PersistentVolumeClaimRetentionPolicy: s.PersistentVolumeClaimRetentionPolicy,
		Selector:                             kubeSelector{MatchLabels: e.selector()},
		Template:                             e.podTemplate(),
		VolumeClaimTemplates:                 e.claims(),
	}
	if s.Ordinals.Start != 0 {
		spec.Ordinals = &kubeOrdinals{Start: s.Ordinals.Start}
	}
	e.objects, e.err = carriedBack(s.Kubernetes, &spec.Template.Spec)
	return kubeObject{
		APIVersion: "apps/v1",
		Kind:       "StatefulSet",
		Metadata:   e.meta(s.Name, maps.Clone(keptLabels(s.Kubernetes)), fromManifest(s.Kubernetes)),
		Spec:       spec,
	}
}

func (e *exporter) updateStrategy() kubeUpdateStrategy {
	u := e.set.UpdateStrategy
	if p := u.ProgressDeadlineSeconds; p != nil && *p != config.DefaultProgressDeadlineSeconds {
		e.unexpressed("updateStrategy.progressDeadlineSeconds", "a StatefulSet has no progress deadline")
		e.keep(*p, "updateStrategy", "progressDeadlineSeconds")
	}
	if u.AutoRollback {
		e.unexpressed("updateStrategy.autoRollback", "a StatefulSet does not roll back by itself")
		e.keep(true, "updateStrategy", "autoRollback")
	}
	if u.Type != config.RollingUpdate { // OnDelete, Recreate: no rollingUpdate, as Kubernetes validates
		return kubeUpdateStrategy{Type: u.Type}
	}
	ru := &kubeRollingUpdate{Partition: u.RollingUpdate.Partition}
	if mu := string(u.RollingUpdate.MaxUnavailable); mu != config.DefaultMaxUnavailable {
		if n, err := strconv.Atoi(mu); err == nil {
			ru.MaxUnavailable = n
		} else {
			ru.MaxUnavailable = mu
		}
	}
	return kubeUpdateStrategy{Type: config.RollingUpdate, RollingUpdate: ru}
}

func (e *exporter) podTemplate() kubePodTemplate {
	s := e.set
	t := s.Template
	labels := e.selector() // the pods carry the selector's labels
	for _, k := range slices.Sorted(maps.Keys(t.Labels)) {
		p := "template.labels." + k
		v := t.Labels[k]
		switch {
		case labels[k] != "" && v != labels[k]:
			e.unexpressed(p, "the label selects the set's pods and must be %q", labels[k])
			e.keep(v, "template", "labels", k)
		case strings.Contains(v, "{{"):
			e.unexpressed(p, "%q: a pod template's labels are the same for every pod", v)
			e.keep(v, "template", "labels", k)
		case kubenames.CheckLabel(k, v) != nil:
			e.unexpressed(p, "%v", kubenames.CheckLabel(k, v))
			e.keep(v, "template", "labels", k)
		case k == NameLabel && labels[k] == v:
			// The manifest writes it as the selector, which an import
			// does not take for a label of the set: the annotation keeps
			// that the set file says it.
			e.keep(v, "template", "labels", k)
		default:
			labels[k] = v
		}
	}
	tmpl := kubePodTemplate{
		Metadata: kubeMeta{Labels: labels},
		Spec: kubePodSpec{
			TerminationGracePeriodSeconds: s.TerminationGracePeriodSeconds,
			Containers:                    []kubeContainer{e.mainContainer()},
		},
	}
	if e.opt.RestartedAt != "" {
		tmpl.Metadata.Annotations = map[string]string{RestartedAtAnnotation: e.opt.RestartedAt}
	}
	tmpl.Spec.Volumes = e.tmpfsVolumes()
	if len(tmpl.Spec.Volumes) > 0 {
		c := &tmpl.Spec.Containers[0]
		for i, v := range tmpl.Spec.Volumes {
			target, _, _ := config.ParseTmpfs(t.Tmpfs[i])
			c.VolumeMounts = append(c.VolumeMounts, kubeVolumeMount{Name: v.Name, MountPath: target})
		}
	}
	tmpl.Spec.InitContainers = e.initContainers()
	tmpl.Spec.Volumes = append(tmpl.Spec.Volumes, e.fileVolumes(&tmpl.Spec)...)
	if gid := e.fsGroup(); gid != nil {
		tmpl.Spec.SecurityContext = &kubePodSecurity{FSGroup: gid}
	}
	if k := s.Kubernetes; k != nil && k.PodUser {
		podUser(&tmpl.Spec)
	}
	if fromManifest(s.Kubernetes) {
		unusedRuntimeEnv(&tmpl.Spec)
	}
	return tmpl
}

// runtimeEnv are the variables ostset sets in every replica, as a pod gets them.
func (e *exporter) runtimeEnv() []kubeEnv {
	return []kubeEnv{
		{Name: EnvSet, Value: e.set.Name},
		{Name: EnvOrdinal, ValueFrom: fieldRef("metadata.labels['" + PodIndexLabel + "']")},
		{Name: EnvName, ValueFrom: fieldRef("metadata.name")},
		{Name: EnvService, Value: e.set.ServiceName},
	}
}

func fieldRef(path string) *kubeEnvFrom {
	return &kubeEnvFrom{FieldRef: &kubeFieldRef{FieldPath: path}}
}

// keyRef writes a variable from a key of a Secret or ConfigMap as the
// reference it is: the value is the cluster's, not the export's.
func keyRef(name string, r envref.Ref) kubeEnv {
	ref := &kubeKeyRef{Name: r.Name, Key: r.Key}
	if r.Kind == envref.ConfigMap {
		return kubeEnv{Name: name, ValueFrom: &kubeEnvFrom{ConfigMapKeyRef: ref}}
	}
	return kubeEnv{Name: name, ValueFrom: &kubeEnvFrom{SecretKeyRef: ref}}
}

// containerParts are what the main and the init containers share.
type containerParts struct {
	path       string // "template" or "template.initContainers[0]"
	command    []string
	args       []string
	env        map[string]string
	envRefs    map[string]envref.Ref
	workingDir string
	user       string
	resources  config.Resources
	mounts     []config.VolumeMount
}

// container maps the parts. Fields the manifest does not say exactly are
// kept in the annotation one by one when keep is set (the main container),
// else it only reports that one is not (an init container: the annotation
// keeps their list whole). Every container gets the per-ordinal volumes at
// their mount paths, as ostset gives them to the main and the init containers.
func (e *exporter) container(name, image, pull string, p containerParts, keep bool) (kubeContainer, bool) {
	if pull == "" {
		pull = config.PullIfNotPresent
	}
	c := kubeContainer{Name: name, Image: image, ImagePullPolicy: pull}
	exact := true
	inexact := func(v any, field ...string) {
		exact = false
		if keep {
			e.keep(v, append([]string{p.path}, field...)...)
		}
	}
	list := func(field string, in []string) []string {
		var out []string
		same := true
		for i, v := range in {
			w, ok := e.say(fmt.Sprintf("%s.%s[%d]", p.path, field, i), v, kuberefs.KubeRefs)
			same = same && ok
			out = append(out, w)
		}
		if !same {
			inexact(in, field)
		}
		return out
	}
	c.Command = list("command", p.command)
	c.Args = list("args", p.args)
	if w, ok := e.say(p.path+".workingDir", p.workingDir, kuberefs.NoRefs); !ok {
		inexact(p.workingDir, "workingDir")
		c.WorkingDir = w
	} else {
		c.WorkingDir = p.workingDir
	}
	c.Env = e.runtimeEnv()
	for _, k := range slices.Sorted(maps.Keys(p.envRefs)) {
		c.Env = append(c.Env, keyRef(k, p.envRefs[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(p.env)) {
		env, ok := e.envVar(p.path+".env."+k, k, p.env[k])
		if !ok {
			inexact(p.env[k], "env", k)
		}
		c.Env = append(c.Env, env)
	}
	if sc, ok := e.securityContext(p.path, p.user); ok {
		c.SecurityContext = sc
	} else {
		inexact(p.user, "user")
	}
	c.Resources = resources(p.resources)
	for _, vc := range e.set.VolumeClaimTemplates {
		c.VolumeMounts = append(c.VolumeMounts, kubeVolumeMount{Name: vc.Name, MountPath: vc.MountPath})
	}
	for i, m := range p.mounts {
		e.unexpressed(fmt.Sprintf("%s.volumeMounts[%d]", p.path, i), "%s: a %s is a Docker mount; use a ConfigMap, Secret or volume in the cluster", m.Source, mountKind(m))
	}
	if len(p.mounts) > 0 {
		inexact(p.mounts, "volumeMounts")
	}
	return c, exact
}

// say writes v, a string ostset expands per replica, for a place of the
// given style, and reports whether the manifest says v exactly (as the same
// text). A template that is the same for every replica of the set as it is
// now (a list of peers) is written expanded, and reported: it does not follow
// a scale. Any other template that is more than a replica variable is
// reported and written as is.
func (e *exporter) say(field, v string, style kuberefs.Style) (string, bool) {
	w, ok := kuberefs.Translate(v, style)
	if ok {
		return w, w == v
	}
	if fixed, same := e.sameForEveryReplica(v); same {
		if style == kuberefs.KubeRefs {
			fixed = kuberefs.Escape(fixed)
		}
		e.unexpressed(field, "%q: written as its value for the %d replicas the set has now; it does not follow a scale", v, e.set.DesiredReplicas())
		return fixed, false
	}
	if style == kuberefs.NoRefs {
		e.unexpressed(field, "%q: Kubernetes takes this field as written, the same for every pod; written as is", v)
	} else {
		e.unexpressed(field, "%q: only {{.Set}}, {{.Ordinal}}, {{.Name}} and {{.Service}} can differ per pod; written as is", v)
	}
	return v, false
}

// sameForEveryReplica expands v for each replica of the set as it is now, and
// gives the value if they all agree.
func (e *exporter) sameForEveryReplica(v string) (string, bool) {
	s := e.set
	first, end := s.FirstOrdinal(), s.EndOrdinal()
	if end <= first {
		return "", false
	}
	var value string
	for i := first; i < end; i++ {
		out, err := config.ExpandString(v, s.ReplicaVars(s.ServiceName, i))
		if err != nil || (i > first && out != value) {
			return "", false
		}
		value = out
	}
	return value, true
}

// envVar maps one variable, and reports whether the manifest says its value
// exactly. A value that is exactly {{.Ordinal}} or {{.Name}} reads the pod's
// field directly; other replica variables are $(OSTSET_...) references to the
// runtime variables defined before it.
func (e *exporter) envVar(field, k, v string) (kubeEnv, bool) {
	switch kuberefs.SingleRef(v) {
	case EnvOrdinal:
		return kubeEnv{Name: k, ValueFrom: fieldRef("metadata.labels['" + PodIndexLabel + "']")}, false
	case EnvName:
		return kubeEnv{Name: k, ValueFrom: fieldRef("metadata.name")}, false
	}
	w, ok := e.say(field, v, kuberefs.KubeRefs)
	return kubeEnv{Name: k, Value: w}, ok
}

func mountKind(m config.VolumeMount) string {
	if strings.HasPrefix(m.Source, "/") || strings.HasPrefix(m.Source, ".") {
		return "bind mount"
	}
	return "shared named volume"
}

// securityContext maps "UID[:GID]"; a user name cannot be said (Kubernetes
// takes numbers only).
func (e *exporter) securityContext(path, user string) (*kubeContainerSecurity, bool) {
	if user == "" {
		return nil, true
	}
	u, g, hasGID, ok := numericUser(user)
	if !ok {
		e.unexpressed(path+".user", "%q: Kubernetes takes a numeric runAsUser and runAsGroup only", user)
		return nil, false
	}
	sc := &kubeContainerSecurity{RunAsUser: &u}
	if hasGID {
		sc.RunAsGroup = &g
	}
	return sc, true
}

// numericUser splits "UID[:GID]" when both are numbers ("" is numeric: root).
func numericUser(user string) (uid, gid int64, hasGID, ok bool) {
	if user == "" {
		return 0, 0, false, true
	}
	u, g, hasGID := strings.Cut(user, ":")
	uid, err1 := strconv.ParseInt(u, 10, 64)
	gid, err2 := strconv.ParseInt(g, 10, 64)
	return uid, gid, hasGID, err1 == nil && (!hasGID || err2 == nil)
}

// resources writes the limits, and the reservations as requests.
func resources(r config.Resources) *kubeResources {
	quantities := func(r config.Resources) map[string]string {
		out := map[string]string{}
		if n, err := config.ParseCPUs(r.CPUs); err == nil {
			out["cpu"] = decimalCPUs(n)
		}
		if n, err := config.ParseMemory(r.Memory); err == nil {
			out["memory"] = binaryQuantity(n)
		}
		if len(out) == 0 {
			return nil
		}
		return out
	}
	out := &kubeResources{Limits: quantities(r)}
	if r.Reservations != nil {
		out.Requests = quantities(*r.Reservations)
	}
	if out.Limits == nil && out.Requests == nil {
		return nil
	}
	return out
}

// decimalCPUs writes nano CPUs as a decimal number of CPUs ("0.5"), which
// both Kubernetes and the set file read.
func decimalCPUs(n int64) string {
	whole, frac := n/1e9, n%1e9
	if frac == 0 {
		return strconv.FormatInt(whole, 10)
	}
	return strings.TrimRight(fmt.Sprintf("%d.%09d", whole, frac), "0")
}

// binaryQuantity writes bytes with the largest binary unit that divides them.
func binaryQuantity(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

func (e *exporter) mainContainer() kubeContainer {
	s := e.set
	t := s.Template
	name := s.Name
	if k := s.Kubernetes; k != nil && k.Container != "" {
		name = k.Container
	}
	c, _ := e.container(name, t.Image, t.ImagePullPolicy, containerParts{
		path: "template", command: t.Command, args: t.Args, env: t.Env, envRefs: t.EnvRefs,
		workingDir: t.WorkingDir, user: t.User, resources: t.Resources, mounts: otherMounts(s.Kubernetes, t.VolumeMounts),
	}, true)
	c.Ports = e.ports()
	c.ReadinessProbe = e.probe("healthcheck", t.Healthcheck)
	for key, h := range map[string]*config.Healthcheck{"livenessProbe": t.Liveness, "startupProbe": t.Startup} {
		if e.carried("container." + key) {
			continue // written back as the manifest had it (carriedBack)
		}
		if p := e.probe(strings.TrimSuffix(key, "Probe"), h); p != nil {
			var n yaml.Node
			_ = n.Encode(p)
			c.Carried = carry(c.Carried, key, &n)
		}
	}
	e.settings(&c)
	if t.RestartPolicy != config.DefaultRestartPolicy {
		e.unexpressed("template.restartPolicy", "%q: a StatefulSet's pods always restart", t.RestartPolicy)
		e.keep(t.RestartPolicy, "template", "restartPolicy")
	}
	return c
}

// carried reports whether the import kept the piece at path as written.
func (e *exporter) carried(path string) bool {
	k := e.set.Kubernetes
	return k != nil && slices.ContainsFunc(k.Carried, func(c config.KubernetesCarried) bool { return c.Path == path })
}

func (e *exporter) initContainers() []kubeContainer {
	var out []kubeContainer
	exact := true
	for i, ic := range e.set.Template.InitContainers {
		c, ok := e.container(ic.Name, ic.Image, ic.ImagePullPolicy, containerParts{
			path: fmt.Sprintf("template.initContainers[%d]", i), command: ic.Command, args: ic.Args, env: ic.Env, envRefs: ic.EnvRefs,
			workingDir: ic.WorkingDir, user: ic.User, resources: ic.Resources, mounts: otherMounts(e.set.Kubernetes, ic.VolumeMounts),
		}, false)
		exact = exact && ok
		out = append(out, c)
	}
	if !exact {
		// A list is kept whole: the overlay replaces lists.
		e.keep(e.set.Template.InitContainers, "template", "initContainers")
	}
	return out
}

// ports maps container ports. ostset publishes ordinal i on hostPort+i,
// which a pod cannot do.
func (e *exporter) ports() []kubeContainerPort {
	var out []kubeContainerPort
	hostPorts := false
	for i, p := range e.set.Template.Ports {
		out = append(out, kubeContainerPort{Name: portName(e.set.Kubernetes, p.ContainerPort, p.Protocol), ContainerPort: p.ContainerPort, Protocol: strings.ToUpper(p.Protocol)})
		if p.HostPort != 0 || p.HostIP != "" {
			hostPorts = true
			e.unexpressed(fmt.Sprintf("template.ports[%d].hostPort", i), "%d published per ordinal (hostPort + ordinal): use a Service of type NodePort or LoadBalancer, or kubectl port-forward", p.HostPort)
		}
	}
	if hostPorts {
		e.keep(e.set.Template.Ports, "template", "ports")
	}
	return out
}

// Docker's healthcheck defaults, which a probe must write out: Kubernetes'
// own differ (10s period, 1s timeout).
const (
	dockerHealthInterval = 30
	dockerHealthTimeout  = 30
	dockerHealthRetries  = 3
)

// probe maps the healthcheck to a readiness probe, which is what readiness
// means to ostset, or the liveness or startup probe (field) to the probe of
// the same name (with Kubernetes' defaults, as ostset runs them). The set
// file's value is always kept in the annotation: a probe counts whole seconds
// and cannot tell a default from a value.
func (e *exporter) probe(field string, h *config.Healthcheck) *kubeProbe {
	if h == nil {
		return nil
	}
	e.keep(h, "template", field)
	if len(h.Test) < 2 { // ["NONE"]: no probe
		return nil
	}
	defs := [3]int{dockerHealthInterval, dockerHealthTimeout, dockerHealthRetries}
	if field != "healthcheck" {
		defs = [3]int{kubeProbePeriod, kubeProbeTimeout, kubeProbeThreshold}
	}
	p := &kubeProbe{
		InitialDelaySeconds: seconds(h.StartPeriod, 0),
		PeriodSeconds:       seconds(h.Interval, defs[0]),
		TimeoutSeconds:      seconds(h.Timeout, defs[1]),
		FailureThreshold:    cmp.Or(h.Retries, defs[2]),
	}
	if pt, ok := kubeprobe.Parse(h.Test); ok {
		e.probeHandler(p, pt)
		return p
	}
	if h.Test[0] == "CMD-SHELL" {
		script, ok := kuberefs.Translate(strings.Join(h.Test[1:], " "), kuberefs.ShellRefs)
		if !ok {
			e.unexpressed("template."+field+".test", "%q: only {{.Set}}, {{.Ordinal}}, {{.Name}} and {{.Service}} can be said per pod; written as is", script)
		}
		p.Exec = &kubeExec{Command: []string{"sh", "-c", script}}
		return p
	}
	for i, a := range h.Test[1:] {
		if strings.Contains(a, "{{") {
			e.unexpressed(fmt.Sprintf("template.%s.test[%d]", field, i+1), "%q: an exec probe's command is not expanded per pod (use CMD-SHELL and the OSTSET_ variables); written as is", a)
		}
	}
	p.Exec = &kubeExec{Command: slices.Clone(h.Test[1:])}
	return p
}

// probeHandler writes ostset's own probe (which a cluster does not have) as
// the tcpSocket or httpGet probe it came from. The host is left out when it
// is the pod's own address, which Kubernetes probes by default.
func (e *exporter) probeHandler(p *kubeProbe, pt kubeprobe.Target) {
	host := pt.Host
	if host == "127.0.0.1" || host == "localhost" {
		host = ""
	}
	port := e.portRef(pt.Port)
	if pt.Kind == config.ProbeTCP {
		p.TCPSocket = &kubeTCPSocket{Port: port, Host: host}
		return
	}
	p.HTTPGet = &kubeHTTPGet{Path: pt.Path, Port: port, Host: host, Scheme: strings.ToUpper(pt.Scheme)}
	if p.HTTPGet.Scheme == "HTTP" {
		p.HTTPGet.Scheme = ""
	}
}

// portRef is how a probe names a container port: by the name the container
// port has, else by its number.
func (e *exporter) portRef(n int) any {
	for _, p := range e.set.Template.Ports {
		if p.ContainerPort == n && strings.EqualFold(orTCP(p.Protocol), "tcp") {
			if name := portName(e.set.Kubernetes, n, p.Protocol); name != "" {
				return name
			}
		}
	}
	return n
}

// seconds rounds d up to whole seconds (at least 1), or gives def for 0.
func seconds(d config.Duration, def int) int {
	if d == 0 {
		return def
	}
	const second = config.Duration(1e9)
	return int(max((d+second-1)/second, 1))
}

// settings maps the Docker container settings that have a Kubernetes
// equivalent (capabilities, tmpfs as a memory emptyDir) and lists the others.
func (e *exporter) settings(c *kubeContainer) {
	t := e.set.Template
	if len(t.CapAdd) > 0 || len(t.CapDrop) > 0 {
		if c.SecurityContext == nil {
			c.SecurityContext = &kubeContainerSecurity{}
		}
		c.SecurityContext.Capabilities = &kubeCapabilities{Add: kubeCapabilityNames(t.CapAdd), Drop: kubeCapabilityNames(t.CapDrop)}
	}
	docker := []struct {
		field string
		set   bool
		v     any
		why   string
	}{
		{"stopSignal", t.StopSignal != "", t.StopSignal, "Kubernetes stops a container with SIGTERM"},
		{"shmSize", t.ShmSize != "", t.ShmSize, "use a memory emptyDir mounted at /dev/shm"},
		{"ulimits", len(t.Ulimits) > 0, t.Ulimits, "a pod takes the node's limits"},
		{"sysctls", len(t.Sysctls) > 0, t.Sysctls, "set them in the pod's securityContext.sysctls if the cluster allows them"},
		{"init", t.Init != nil, t.Init, "a pod has no init process option (shareProcessNamespace comes closest)"},
		{"extraHosts", len(t.ExtraHosts) > 0, t.ExtraHosts, "use the pod's hostAliases"},
		{"lifecycle", !t.Lifecycle.Empty(), t.Lifecycle, "hooks run through docker exec; a container's lifecycle handlers take one command each, with no user, environment or working directory"},
	}
	for _, d := range docker {
		if d.set {
			e.unexpressed("template."+d.field, "a Docker setting: %s", d.why)
			e.keep(d.v, "template", d.field)
		}
	}
	if len(t.CapAdd) > 0 {
		e.keep(t.CapAdd, "template", "capAdd") // the manifest writes them without CAP_
	}
	if len(t.CapDrop) > 0 {
		e.keep(t.CapDrop, "template", "capDrop")
	}
	if len(t.Tmpfs) > 0 {
		e.keep(t.Tmpfs, "template", "tmpfs")
	}
}

// kubeCapabilityNames writes capabilities as Kubernetes does: NET_ADMIN, not
// CAP_NET_ADMIN or net_admin.
func kubeCapabilityNames(caps []string) []string {
	var out []string
	for _, c := range caps {
		out = append(out, strings.TrimPrefix(strings.ToUpper(c), "CAP_"))
	}
	return out
}

// tmpfsVolumes maps each tmpfs mount to a memory emptyDir, with its size;
// other mount options are lost.
func (e *exporter) tmpfsVolumes() []kubeVolume {
	var out []kubeVolume
	for i, entry := range e.set.Template.Tmpfs {
		_, opts, _ := config.ParseTmpfs(entry)
		v := kubeVolume{Name: fmt.Sprintf("tmpfs-%d", i), EmptyDir: &kubeEmptyDir{Medium: "Memory"}}
		for o := range strings.SplitSeq(opts, ",") {
			k, val, _ := strings.Cut(o, "=")
			switch {
			case o == "":
			case k == "size":
				if n, err := config.ParseMemory(val); err == nil {
					v.EmptyDir.SizeLimit = binaryQuantity(n)
				}
			default:
				e.unexpressed(fmt.Sprintf("template.tmpfs[%d]", i), "option %q: an emptyDir takes a size only", o)
			}
		}
		out = append(out, v)
	}
	return out
}

// fileVolumes writes the Secret and ConfigMap volumes the set keeps
// (kubernetes.volumes) where its containers mount their files, once each,
// and mounts them there.
func (e *exporter) fileVolumes(pod *kubePodSpec) []kubeVolume {
	var out []kubeVolume
	containers, mounts := []*kubeContainer{&pod.Containers[0]}, [][]config.VolumeMount{e.set.Template.VolumeMounts}
	for i := range pod.InitContainers {
		containers, mounts = append(containers, &pod.InitContainers[i]), append(mounts, e.set.Template.InitContainers[i].VolumeMounts)
	}
	for i, c := range containers {
		for _, v := range keptVolumes(e.set.Kubernetes, mounts[i]) {
			c.VolumeMounts = append(c.VolumeMounts, kubeVolumeMount{Name: v.Name, MountPath: v.MountPath, ReadOnly: true})
			if slices.ContainsFunc(out, func(k kubeVolume) bool { return k.Name == v.Name }) {
				continue
			}
			from := &kubeFilesFrom{Name: v.Object}
			if v.DefaultMode != 0 {
				from.DefaultMode = ptr(int(v.DefaultMode))
			}
			kv := kubeVolume{Name: v.Name, ConfigMap: from}
			if v.Kind == "Secret" {
				from.SecretName, from.Name, kv.ConfigMap, kv.Secret = v.Object, "", nil, from
			}
			out = append(out, kv)
		}
	}
	return out
}

// keptVolumes are the kept volumes mounted where the set mounts files.
func keptVolumes(k *config.KubernetesNames, mounts []config.VolumeMount) []config.KubernetesVolume {
	if k == nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(k.Volumes), func(v config.KubernetesVolume) bool {
		return !slices.ContainsFunc(mounts, func(m config.VolumeMount) bool { return m.Target == v.MountPath })
	})
}

// otherMounts are the mounts no kept volume stands for.
func otherMounts(k *config.KubernetesNames, mounts []config.VolumeMount) []config.VolumeMount {
	kept := keptVolumes(k, mounts)
	return slices.DeleteFunc(slices.Clone(mounts), func(m config.VolumeMount) bool {
		return slices.ContainsFunc(kept, func(v config.KubernetesVolume) bool { return v.MountPath == m.Target })
	})
}

// fsGroup is the group of the claims' owner: Kubernetes makes a volume
// writable by a group (fsGroup), not owned by a user.
func (e *exporter) fsGroup() *int64 {
	var gid *int64
	for i, c := range e.set.VolumeClaimTemplates {
		if c.Owner == "" {
			continue
		}
		p := fmt.Sprintf("volumeClaimTemplates[%d].owner", i)
		_, g, _ := strings.Cut(c.Owner, ":")
		n, err := strconv.ParseInt(g, 10, 64)
		switch {
		case err != nil:
			e.unexpressed(p, "%q: no numeric group for the pod's fsGroup", c.Owner)
		case gid != nil && *gid != n:
			e.unexpressed(p, "%q: a pod has one fsGroup, already %d", c.Owner, *gid)
		default:
			gid = &n
			e.unexpressed(p, "%q: written as the pod's fsGroup %d (group ownership, not the owner)", c.Owner, n)
		}
	}
	return gid
}

func (e *exporter) claims() []kubeClaim {
	var out []kubeClaim
	keep := false
	for i, c := range e.set.VolumeClaimTemplates {
		p := fmt.Sprintf("volumeClaimTemplates[%d]", i)
		if c.Driver != config.DefaultVolumeDriver || len(c.DriverOpts) > 0 {
			e.unexpressed(p+".driver", "%q with options %v: a claim's storage class decides how the cluster provides a volume", c.Driver, c.DriverOpts)
			keep = true
		}
		keep = keep || c.Owner != ""
		// A claim that takes the image's files (Docker's way; a cluster's
		// claim starts empty) is kept for the import to give back.
		keep = keep || !c.NoCopy
		claim := kubeClaim{
			Metadata: kubeMeta{Name: c.Name},
			Spec: kubeClaimSpec{
				AccessModes: []string{"ReadWriteOnce"},
				Resources:   kubeClaimRequests{Requests: map[string]string{"storage": e.opt.Storage}},
			},
		}
		// A claim the imported manifest said more of is written as it was.
		if k := keptClaim(e.set.Kubernetes, c.Name); k != nil {
			claim.Metadata.Labels, claim.Metadata.Annotations = maps.Clone(k.Labels), maps.Clone(k.Annotations)
			if len(k.AccessModes) > 0 {
				claim.Spec.AccessModes = slices.Clone(k.AccessModes)
			}
			claim.Spec.StorageClassName = k.StorageClassName
			if k.Storage != "" {
				claim.Spec.Resources.Requests["storage"] = k.Storage
			}
		}
		out = append(out, claim)
	}
	if keep {
		e.keep(e.set.VolumeClaimTemplates, "volumeClaimTemplates")
	}
	return out
}

// service is the headless Service that gives the pods their DNS names
// (<set>-<ordinal>.<serviceName>). Addresses are published before the pods
// are ready, as ostset's DNS aliases are: peers must find each other to
// become ready (etcd, Kafka).
//
// A Service the imported manifest had keeps its labels, selector and ports
// as written.
func (e *exporter) service() kubeObject {
	kept := keptService(e.set.Kubernetes)
	spec := kubeServiceSpec{ClusterIP: "None", PublishNotReadyAddresses: true, Selector: e.selector()}
	var labels map[string]string
	if kept != nil {
		labels = maps.Clone(kept.Labels)
		if len(kept.Selector) > 0 {
			spec.Selector = maps.Clone(kept.Selector)
		}
		for _, p := range kept.Ports {
			spec.Ports = append(spec.Ports, kubeServicePort{Name: p.Name, Port: p.Port, TargetPort: intOrName(p.TargetPort), Protocol: p.Protocol})
		}
	}
	for _, p := range e.set.Template.Ports {
		if kept != nil {
			break // the kept Service's ports are what it said: it may leave container ports out
		}
		proto := strings.ToUpper(orTCP(p.Protocol))
		spec.Ports = append(spec.Ports, kubeServicePort{
			Name: fmt.Sprintf("%s-%d", strings.ToLower(proto), p.ContainerPort), Port: p.ContainerPort, TargetPort: p.ContainerPort, Protocol: proto,
		})
	}
	e.checkServiceSelector(spec.Selector)
	return kubeObject{
		APIVersion: "v1",
		Kind:       "Service",
		Metadata:   e.meta(e.set.ServiceName, labels, kept != nil),
		Spec:       spec,
	}
}

// checkServiceSelector reports a kept Service selector that selects none of
// the set's pods: the Service would give them no DNS names.
func (e *exporter) checkServiceSelector(sel map[string]string) {
	pod := maps.Clone(e.set.Template.Labels)
	if pod == nil {
		pod = map[string]string{}
	}
	maps.Copy(pod, e.selector())
	for k, v := range sel {
		if pod[k] != v {
			e.unexpressed("kubernetes.service.selector", "%s=%s is not a label of the set's pods: the Service selects none of them and gives them no DNS names", k, v)
			return
		}
	}
}

// intOrName writes a port that is a number as one.
func intOrName(s string) any {
	if s == "" {
		return nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return s
}

// OverlayExport lays the fields an export kept in its ExportAnnotation over
// s, a set read from the exported manifest: a field in the annotation
// replaces the field of s, except that variables (env) and labels are
// replaced one by one. An annotation that is not a set-file fragment is an
// error naming it.
func OverlayExport(s *config.Set, annotations map[string]string) error {
	frag, _, err := roundtrip.Split(annotations)
	if err != nil || frag == "" {
		return err
	}
	dec := yaml.NewDecoder(strings.NewReader(frag))
	dec.KnownFields(true)
	if err := dec.Decode(s); err != nil {
		return fmt.Errorf("metadata.annotations[%s]: %w", ExportAnnotation, err)
	}
	return nil
}

var storageRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$`)

// CheckStorage checks a storage request: a Kubernetes quantity of bytes.
func CheckStorage(s string) error {
	if !storageRe.MatchString(s) || strings.Trim(s, "0.KMGTPEik") == "" {
		return fmt.Errorf("%q is not a storage size (like 1Gi, 500Mi or 10G)", s)
	}
	return nil
}

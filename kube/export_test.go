package kube

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/ostset/ostset/config"
)

// exportCases are the examples and a set with every field export maps or
// reports.
var exportCases = map[string]string{
	"web":      "../examples/web/set.yaml",
	"etcd":     "../examples/etcd/set.yaml",
	"redis":    "../examples/redis/set.yaml",
	"postgres": "../examples/postgres/set.yaml",
	"kafka":    "../examples/kafka/set.yaml",
	"every":    "../config/testdata/every.yaml",
}

func loadExportCase(t *testing.T, path string) config.Set {
	t.Helper()
	sets, err := config.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 1 {
		t.Fatalf("%s: %d sets, want 1", path, len(sets))
	}
	return sets[0]
}

// The manifests and the list of what they cannot express are pinned by
// golden files (go test ./kube -run TestExportGolden -update rewrites them;
// the flag is declared with the import tests).
func TestExportGolden(t *testing.T) {
	for name, path := range exportCases {
		t.Run(name, func(t *testing.T) {
			out, lost, err := ExportKubernetes(loadExportCase(t, path), ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			got.Write(out)
			got.WriteString("# not expressible:\n")
			for _, u := range lost {
				fmt.Fprintf(&got, "# %s\n", u)
			}
			golden := filepath.Join("testdata", "export", name+".golden")
			if *updateGolden {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("export of %s differs from %s:\n%s", path, golden, got.String())
			}
		})
	}
}

// splitDocs splits multi-document YAML.
func splitDocs(t *testing.T, out []byte) [][]byte {
	t.Helper()
	var docs [][]byte
	for d := range strings.SplitSeq(string(out), "\n---\n") {
		docs = append(docs, []byte(d))
	}
	return docs
}

// decodeExport decodes an export strictly with the upstream Kubernetes types:
// an unknown field, a misspelt one or a value of the wrong type fails.
func decodeExport(t *testing.T, out []byte) (appsv1.StatefulSet, corev1.Service) {
	t.Helper()
	docs := splitDocs(t, out)
	if len(docs) != 2 {
		t.Fatalf("%d documents, want a StatefulSet and a Service:\n%s", len(docs), out)
	}
	if strings.Contains(string(docs[0]), "kind: Service\n") { // the manifest's order
		docs[0], docs[1] = docs[1], docs[0]
	}
	var sts appsv1.StatefulSet
	var svc corev1.Service
	if err := sigsyaml.UnmarshalStrict(docs[0], &sts); err != nil {
		t.Fatalf("StatefulSet does not decode strictly: %v\n%s", err, docs[0])
	}
	if err := sigsyaml.UnmarshalStrict(docs[1], &svc); err != nil {
		t.Fatalf("Service does not decode strictly: %v\n%s", err, docs[1])
	}
	return sts, svc
}

// Every export decodes strictly as a StatefulSet and a Service and passes the
// checks the API server makes on what export fills in.
func TestExportIsAValidStatefulSetAndService(t *testing.T) {
	for name, path := range exportCases {
		t.Run(name, func(t *testing.T) {
			s := loadExportCase(t, path)
			out, _, err := ExportKubernetes(s, ExportOptions{Storage: "10Gi", RestartedAt: "2026-01-02T03:04:05Z"})
			if err != nil {
				t.Fatal(err)
			}
			sts, svc := decodeExport(t, out)
			checkStatefulSet(t, s, sts)
			checkService(t, s, sts, svc)
		})
	}
}

func checkStatefulSet(t *testing.T, s config.Set, sts appsv1.StatefulSet) {
	t.Helper()
	errs := func(what string, msgs []string) {
		for _, m := range msgs {
			t.Errorf("%s: %s", what, m)
		}
	}
	if sts.APIVersion != "apps/v1" || sts.Kind != "StatefulSet" || sts.Name != s.Name {
		t.Errorf("object %s %s %q, want apps/v1 StatefulSet %q", sts.APIVersion, sts.Kind, sts.Name, s.Name)
	}
	spec := sts.Spec
	if spec.Replicas == nil || int(*spec.Replicas) != s.DesiredReplicas() || spec.ServiceName != s.ServiceName {
		t.Errorf("replicas %v, serviceName %q; want %d, %q", spec.Replicas, spec.ServiceName, s.DesiredReplicas(), s.ServiceName)
	}
	if string(spec.PodManagementPolicy) != s.PodManagementPolicy || string(spec.UpdateStrategy.Type) != s.UpdateStrategy.Type {
		t.Errorf("policies %s, %s; want %s, %s", spec.PodManagementPolicy, spec.UpdateStrategy.Type, s.PodManagementPolicy, s.UpdateStrategy.Type)
	}
	if ru := spec.UpdateStrategy.RollingUpdate; s.UpdateStrategy.Type == config.RollingUpdate &&
		(ru == nil || ru.Partition == nil || int(*ru.Partition) != s.Partition()) {
		t.Errorf("rollingUpdate %+v, want partition %d", ru, s.Partition())
	}
	if int(spec.MinReadySeconds) != s.MinReadySeconds || spec.RevisionHistoryLimit == nil || int(*spec.RevisionHistoryLimit) != s.HistoryLimit() {
		t.Errorf("minReadySeconds %d, revisionHistoryLimit %v", spec.MinReadySeconds, spec.RevisionHistoryLimit)
	}
	if start := 0; spec.Ordinals != nil {
		start = int(spec.Ordinals.Start)
		if start != s.FirstOrdinal() {
			t.Errorf("ordinals.start %d, want %d", start, s.FirstOrdinal())
		}
	} else if s.FirstOrdinal() != 0 {
		t.Errorf("no ordinals.start, want %d", s.FirstOrdinal())
	}
	rp := spec.PersistentVolumeClaimRetentionPolicy
	if rp == nil || string(rp.WhenDeleted) != s.PersistentVolumeClaimRetentionPolicy.WhenDeleted || string(rp.WhenScaled) != s.PersistentVolumeClaimRetentionPolicy.WhenScaled {
		t.Errorf("persistentVolumeClaimRetentionPolicy %+v", rp)
	}
	// The API server refuses a selector that does not select the template.
	if spec.Selector == nil || len(spec.Selector.MatchLabels) == 0 {
		t.Fatal("no selector")
	}
	pod := spec.Template
	for k, v := range spec.Selector.MatchLabels {
		if pod.Labels[k] != v {
			t.Errorf("selector %s=%s does not select the template's labels %v", k, v, pod.Labels)
		}
	}
	for k, v := range pod.Labels {
		errs("label "+k, validation.IsQualifiedName(k))
		errs("label "+k+" value", validation.IsValidLabelValue(v))
	}
	for k := range sts.Annotations {
		errs("annotation "+k, validation.IsQualifiedName(k))
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || int(*g) != *s.TerminationGracePeriodSeconds {
		t.Errorf("terminationGracePeriodSeconds %v, want %d", g, *s.TerminationGracePeriodSeconds)
	}
	volumes := map[string]bool{}
	for _, c := range spec.VolumeClaimTemplates {
		errs("claim "+c.Name, validation.IsDNS1123Label(c.Name))
		if q := c.Spec.Resources.Requests[corev1.ResourceStorage]; q.Cmp(resource.MustParse("10Gi")) != 0 || len(c.Spec.AccessModes) == 0 {
			t.Errorf("claim %s: storage %s, access modes %v", c.Name, q.String(), c.Spec.AccessModes)
		}
		volumes[c.Name] = true
	}
	for _, v := range pod.Spec.Volumes {
		errs("volume "+v.Name, validation.IsDNS1123Label(v.Name))
		volumes[v.Name] = true
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if c.Image != s.Template.Image {
		t.Errorf("image %q, want %q", c.Image, s.Template.Image)
	}
	if len(pod.Spec.InitContainers) != len(s.Template.InitContainers) {
		t.Errorf("%d init containers, want %d", len(pod.Spec.InitContainers), len(s.Template.InitContainers))
	}
	names := map[string]bool{}
	for _, c := range append(slices.Clone(pod.Spec.InitContainers), pod.Spec.Containers...) {
		errs("container "+c.Name, validation.IsDNS1123Label(c.Name))
		if names[c.Name] {
			t.Errorf("container name %s used twice", c.Name)
		}
		names[c.Name] = true
		if c.Image == "" || c.ImagePullPolicy == "" {
			t.Errorf("container %s: image %q, pull policy %q", c.Name, c.Image, c.ImagePullPolicy)
		}
		for _, e := range c.Env {
			errs("env "+e.Name, validation.IsEnvVarName(e.Name))
			if f := e.ValueFrom; f != nil && f.FieldRef != nil && !slices.Contains([]string{"metadata.name", "metadata.labels['" + PodIndexLabel + "']"}, f.FieldRef.FieldPath) {
				t.Errorf("env %s: field %s", e.Name, f.FieldRef.FieldPath)
			}
		}
		mounts := map[string]bool{}
		for _, m := range c.VolumeMounts {
			if !volumes[m.Name] {
				t.Errorf("container %s mounts %s, which is neither a claim nor a volume", c.Name, m.Name)
			}
			if mounts[m.MountPath] {
				t.Errorf("container %s mounts %s twice", c.Name, m.MountPath)
			}
			mounts[m.MountPath] = true
		}
		for r, q := range c.Resources.Limits {
			if q.Sign() <= 0 {
				t.Errorf("container %s: limit %s %s", c.Name, r, q.String())
			}
		}
		if p := c.ReadinessProbe; p != nil && (p.Exec == nil || len(p.Exec.Command) == 0 || p.PeriodSeconds < 1 || p.TimeoutSeconds < 1 || p.FailureThreshold < 1) {
			t.Errorf("container %s: readinessProbe %+v", c.Name, p)
		}
	}
	for _, p := range c.Ports {
		if p.ContainerPort < 1 || !slices.Contains([]corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}, p.Protocol) {
			t.Errorf("port %+v", p)
		}
	}
}

func checkService(t *testing.T, s config.Set, sts appsv1.StatefulSet, svc corev1.Service) {
	t.Helper()
	if svc.APIVersion != "v1" || svc.Kind != "Service" || svc.Name != s.ServiceName {
		t.Errorf("object %s %s %q, want v1 Service %q", svc.APIVersion, svc.Kind, svc.Name, s.ServiceName)
	}
	for _, m := range validation.IsDNS1035Label(svc.Name) {
		t.Errorf("service name %s: %s", svc.Name, m)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses {
		t.Errorf("clusterIP %q, publishNotReadyAddresses %v: want a headless Service that publishes replicas before they are ready", svc.Spec.ClusterIP, svc.Spec.PublishNotReadyAddresses)
	}
	for k, v := range svc.Spec.Selector {
		if sts.Spec.Template.Labels[k] != v {
			t.Errorf("service selector %s=%s does not select the pods", k, v)
		}
	}
	if len(svc.Spec.Selector) == 0 {
		t.Error("service without a selector")
	}
	seen := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		for _, m := range validation.IsValidPortName(p.Name) {
			t.Errorf("service port %s: %s", p.Name, m)
		}
		if seen[p.Name] {
			t.Errorf("service port name %s used twice", p.Name)
		}
		seen[p.Name] = true
	}
}

// The annotation a cluster ignores carries the fields the manifest does not
// say exactly, verbatim.
func TestExportAnnotationKeepsWhatTheManifestCannotSay(t *testing.T) {
	s := loadExportCase(t, "../config/testdata/every.yaml")
	out, _, err := ExportKubernetes(s, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sts, _ := decodeExport(t, out)
	var kept config.Set
	if err := OverlayExport(&kept, sts.Annotations); err != nil {
		t.Fatal(err)
	}
	// DB_URL's template is said exactly as $(OSTSET_NAME): not kept.
	if kept.Network != "backend" || len(kept.Template.Env) != 0 {
		t.Errorf("kept network %q, env %v: want the network and no variable", kept.Network, kept.Template.Env)
	}
	if !slices.Equal(kept.Template.Args, s.Template.Args) || len(kept.Template.Ports) != 2 || kept.Template.Ports[1].HostPort != 15001 {
		t.Errorf("kept args %q, ports %+v", kept.Template.Args, kept.Template.Ports)
	}
	if kept.Template.Image != "" || kept.Replicas != nil {
		t.Errorf("kept image %q, replicas %v: the manifest says them", kept.Template.Image, kept.Replicas)
	}
}

// OverlayExport replaces lists and fields, and variables one by one.
func TestOverlayExportMergesVariablesAndReplacesLists(t *testing.T) {
	s := config.Set{Name: "web", Template: config.Template{
		Image: "x",
		Args:  []string{"a", "b", "c"},
		Env:   map[string]string{"A": "from the manifest", "B": "$(OSTSET_NAME)"},
	}}
	err := OverlayExport(&s, map[string]string{ExportAnnotation: `{"template":{"args":["{{.Name}}"],"env":{"B":"{{.Name}}"}}}`})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Template.Args, []string{"{{.Name}}"}) || s.Template.Env["A"] != "from the manifest" || s.Template.Env["B"] != "{{.Name}}" || s.Template.Image != "x" {
		t.Errorf("after the overlay: %+v", s.Template)
	}
	err = OverlayExport(&s, map[string]string{ExportAnnotation: `{"template":{"bogus":1}}`})
	if err == nil || !strings.Contains(err.Error(), "metadata.annotations["+ExportAnnotation+"]") || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("an unknown field in the annotation: %v", err)
	}
	if err := OverlayExport(&s, nil); err != nil {
		t.Errorf("no annotation: %v", err)
	}
}

func TestCheckStorage(t *testing.T) {
	for _, ok := range []string{"1Gi", "500Mi", "10G", "1.5Ti", "1048576"} {
		if err := CheckStorage(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
		resource.MustParse(ok) // what Kubernetes accepts
	}
	for _, bad := range []string{"", "0", "0Gi", "1GB", "-1Gi", "lots", "1m"} {
		if err := CheckStorage(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

package kubevalidate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	api "k8s.io/kubernetes/pkg/apis/core"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/core/service"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/kube"
)

const namespace = "default"

// decode reads the StatefulSet and the Service of multi-document YAML,
// strictly, and converts them to the API server's internal types with its
// defaults applied, as a create or an update request would be.
func decode(t *testing.T, name string, text []byte) (*apps.StatefulSet, *api.Service) {
	t.Helper()
	var sts *apps.StatefulSet
	var svc *api.Service
	for doc := range strings.SplitSeq(string(text), "\n---\n") {
		var meta struct{ Kind string }
		if err := sigsyaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		switch meta.Kind {
		case "StatefulSet":
			var in appsv1.StatefulSet
			if err := sigsyaml.UnmarshalStrict([]byte(doc), &in); err != nil {
				t.Fatalf("%s: StatefulSet: %v", name, err)
			}
			sts = &apps.StatefulSet{}
			convert(t, &in, sts)
		case "Service":
			var in corev1.Service
			if err := sigsyaml.UnmarshalStrict([]byte(doc), &in); err != nil {
				t.Fatalf("%s: Service: %v", name, err)
			}
			if in.Spec.ClusterIP != "None" {
				continue
			}
			svc = &api.Service{}
			convert(t, &in, svc)
			// The REST layer fills clusterIPs from clusterIP before
			// validation; a test without it must do that itself.
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
	}
	if sts == nil || svc == nil {
		t.Fatalf("%s: want a StatefulSet and a headless Service", name)
	}
	return sts, svc
}

func convert(t *testing.T, in, out runtime.Object) {
	t.Helper()
	legacyscheme.Scheme.Default(in)
	if err := legacyscheme.Scheme.Convert(in, out, nil); err != nil {
		t.Fatal(err)
	}
	type namespaced interface {
		GetNamespace() string
		SetNamespace(string)
	}
	if m, ok := out.(namespaced); ok && m.GetNamespace() == "" {
		m.SetNamespace(namespace) // as kubectl apply does
	}
}

func ctxFor(ns string) context.Context {
	return genericapirequest.WithNamespace(context.Background(), ns)
}

func report(t *testing.T, what string, errs field.ErrorList) {
	t.Helper()
	for _, e := range errs {
		t.Errorf("%s: %v", what, e)
	}
}

// create runs the checks of a create request.
func create(t *testing.T, name string, sts *apps.StatefulSet, svc *api.Service) {
	t.Helper()
	ctx := ctxFor(sts.Namespace)
	statefulset.Strategy.PrepareForCreate(ctx, sts)
	report(t, name+": create StatefulSet", statefulset.Strategy.Validate(ctx, sts))
	for _, w := range statefulset.Strategy.WarningsOnCreate(ctx, sts) {
		t.Logf("%s: StatefulSet: warning: %s", name, w)
	}
	ctx = ctxFor(svc.Namespace)
	service.Strategy.PrepareForCreate(ctx, svc)
	report(t, name+": create Service", service.Strategy.Validate(ctx, svc))
}

func export(t *testing.T, s config.Set) []byte {
	t.Helper()
	out, _, err := kube.ExportKubernetes(s, kube.ExportOptions{Storage: "10Gi", RestartedAt: "2026-01-02T03:04:05Z"})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The export of every example set, and of a set with every field export
// maps, passes the API server's create validation.
func TestExportsOfSetFilesPassCreateValidation(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*/set.yaml")
	files = append(files, "../../config/testdata/every.yaml")
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			sets, err := config.Load(file, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sets {
				sts, svc := decode(t, file, export(t, s))
				create(t, file, sts, svc)
			}
		})
	}
}

// The export of an imported manifest passes create validation, and applied
// over the original manifest (kubectl apply), update validation: the fields a
// cluster does not let change (the selector, the claims, the service name)
// are the original's.
func TestExportsOfManifestsPassCreateAndUpdateValidation(t *testing.T) {
	files, _ := filepath.Glob("../testdata/kubernetes/*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sets, err := (config.Loader{Lenient: true, Warn: func(string) {}, Manifests: kube.Manifests{}}).Parse(file, text)
			if err != nil {
				t.Fatal(err)
			}
			out := export(t, sets[0])
			sts, svc := decode(t, file+" (export)", out)
			create(t, file+" (export)", sts, svc)

			oldSts, oldSvc := decode(t, file, originals(t, text))
			// What kubectl apply sends carries the stored object's version.
			oldSts.ResourceVersion, sts.ResourceVersion = "1", "1"
			oldSvc.ResourceVersion, svc.ResourceVersion = "1", "1"
			ctx := ctxFor(oldSts.Namespace)
			statefulset.Strategy.PrepareForCreate(ctx, oldSts)
			statefulset.Strategy.PrepareForUpdate(ctx, sts, oldSts)
			report(t, file+": export applied over the original StatefulSet", statefulset.Strategy.ValidateUpdate(ctx, sts, oldSts))
			ctx = ctxFor(oldSvc.Namespace)
			service.Strategy.PrepareForCreate(ctx, oldSvc)
			service.Strategy.PrepareForUpdate(ctx, svc, oldSvc)
			report(t, file+": export applied over the original Service", service.Strategy.ValidateUpdate(ctx, svc, oldSvc))
		})
	}
}

// originals keeps the StatefulSet and Service documents of a manifest file.
func originals(t *testing.T, text []byte) []byte {
	t.Helper()
	var keep [][]byte
	for doc := range strings.SplitSeq(string(text), "\n---\n") {
		var meta struct{ Kind string }
		if err := sigsyaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		if meta.Kind == "StatefulSet" || meta.Kind == "Service" {
			keep = append(keep, []byte(doc))
		}
	}
	return bytes.Join(keep, []byte("\n---\n"))
}

// The conversions of public compose files to Kubernetes (their golden
// outputs, compose/testdata/public/*/kubernetes.golden) pass create
// validation: each StatefulSet with its headless Service, and each Secret and
// ConfigMap decodes strictly.
func TestComposeConversionsPassCreateValidation(t *testing.T) {
	files, _ := filepath.Glob("../../compose/testdata/public/*/kubernetes.golden")
	if len(files) < 3 {
		t.Fatalf("%d conversions, want at least 3", len(files))
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			text, _, _ := strings.Cut(string(b), "# stderr\n")
			docs := strings.Split(strings.TrimSuffix(text, "\n"), "\n---\n")
			services := map[string]string{}
			for _, doc := range docs {
				var meta struct {
					Kind     string
					Metadata struct{ Name string }
				}
				if err := sigsyaml.Unmarshal([]byte(doc), &meta); err != nil {
					t.Fatal(err)
				}
				switch meta.Kind {
				case "Service":
					services[meta.Metadata.Name] = doc
				case "Secret":
					if err := sigsyaml.UnmarshalStrict([]byte(doc), &corev1.Secret{}); err != nil {
						t.Errorf("Secret %s: %v", meta.Metadata.Name, err)
					}
				case "ConfigMap":
					if err := sigsyaml.UnmarshalStrict([]byte(doc), &corev1.ConfigMap{}); err != nil {
						t.Errorf("ConfigMap %s: %v", meta.Metadata.Name, err)
					}
				}
			}
			n := 0
			for _, doc := range docs {
				var in appsv1.StatefulSet
				if err := sigsyaml.Unmarshal([]byte(doc), &in); err != nil || in.Kind != "StatefulSet" {
					continue
				}
				n++
				sts, svc := decode(t, file, []byte(doc+"\n---\n"+services[in.Spec.ServiceName]))
				create(t, file+": "+in.Name, sts, svc)
			}
			if n == 0 {
				t.Error("no StatefulSet")
			}
		})
	}
}

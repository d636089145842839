package oracle

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apps "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	appsdefaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	"k8s.io/kubernetes/pkg/controller/history"
	"k8s.io/kubernetes/pkg/controller/statefulset"
)

// kube is Kubernetes' StatefulSet controller over in-memory pods and claims:
// it is its own StatefulPodControlObjectManager, and records what one pass
// of the controller asks for.
type kube struct {
	mu     sync.Mutex
	pods   map[string]*v1.Pod
	claims map[string]*v1.PersistentVolumeClaim
	uids   int

	// What the last pass asked for.
	created []*v1.Pod
	deleted []*v1.Pod

	ctl       statefulset.StatefulSetControlInterface
	revisions cache.Indexer
	set       *apps.StatefulSet
	// versions maps a ControllerRevision name to the template version it holds.
	versions map[string]int
}

func newKube() *kube {
	f := informers.NewSharedInformerFactory(fake.NewSimpleClientset(), 0)
	k := &kube{pods: map[string]*v1.Pod{}, claims: map[string]*v1.PersistentVolumeClaim{}, versions: map[string]int{}}
	revs := f.Apps().V1().ControllerRevisions()
	k.revisions = revs.Informer().GetIndexer()
	k.ctl = statefulset.NewDefaultStatefulSetControl(
		statefulset.NewStatefulPodControlFromManager(k, record.NewFakeRecorder(1000)),
		statusUpdater{}, history.NewFakeHistory(revs))
	return k
}

// statusUpdater takes the status the controller computes: the pass returns
// it, and the next pass is given it on the set.
type statusUpdater struct{}

func (statusUpdater) UpdateStatefulSetStatus(context.Context, *apps.StatefulSet, *apps.StatefulSetStatus) error {
	return nil
}

func (k *kube) uid(kind, name string) types.UID {
	k.uids++
	return types.UID(fmt.Sprintf("%s-%s-%d", kind, name, k.uids))
}

func (k *kube) CreatePod(_ context.Context, pod *v1.Pod, _ *apps.StatefulSet) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.pods[pod.Name]; ok {
		return apierrors.NewAlreadyExists(v1.Resource("pods"), pod.Name)
	}
	p := pod.DeepCopy()
	p.UID = k.uid("pod", p.Name)
	k.pods[p.Name] = p
	k.created = append(k.created, p)
	return nil
}

func (k *kube) GetPod(_, name string) (*v1.Pod, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if p, ok := k.pods[name]; ok {
		return p.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("pods"), name)
}

func (k *kube) UpdatePod(pod *v1.Pod, _ *apps.StatefulSet) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.pods[pod.Name]; !ok {
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	k.pods[pod.Name] = pod.DeepCopy()
	return nil
}

func (k *kube) DeletePod(pod *v1.Pod) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.pods[pod.Name]; !ok {
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	k.deleted = append(k.deleted, k.pods[pod.Name])
	return nil
}

func (k *kube) CreateClaim(claim *v1.PersistentVolumeClaim, _ *apps.StatefulSet) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.claims[claim.Name]; ok {
		return apierrors.NewAlreadyExists(v1.Resource("persistentvolumeclaims"), claim.Name)
	}
	c := claim.DeepCopy()
	c.UID = k.uid("claim", c.Name)
	k.claims[c.Name] = c
	return nil
}

func (k *kube) GetClaim(_, name string) (*v1.PersistentVolumeClaim, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.claims[name]; ok {
		return c.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), name)
}

func (k *kube) UpdateClaim(claim *v1.PersistentVolumeClaim, _ *apps.StatefulSet) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.claims[claim.Name]; !ok {
		return apierrors.NewNotFound(v1.Resource("persistentvolumeclaims"), claim.Name)
	}
	k.claims[claim.Name] = claim.DeepCopy()
	return nil
}

// removePod takes a pod out of the store as the API server does once its
// termination ends, and collects its garbage as the garbage collector does:
// the claims it owns (whenScaled: Delete marks a condemned pod's claims so).
func (k *kube) removePod(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	p, ok := k.pods[name]
	if !ok {
		return
	}
	delete(k.pods, name)
	for cn, c := range k.claims {
		for _, ref := range c.OwnerReferences {
			if ref.UID == p.UID {
				delete(k.claims, cn)
			}
		}
	}
}

// deleteSet deletes the set as the garbage collector carries the delete
// out: every pod goes, with the claims it owns (whenScaled: Delete marks a
// condemned pod's claims so), and the claims the set owns (whenDeleted:
// Delete).
func (k *kube) deleteSet() {
	for name := range k.pods {
		k.removePod(name)
	}
	for cn, c := range k.claims {
		for _, ref := range c.OwnerReferences {
			if ref.UID == "set-uid" {
				delete(k.claims, cn)
			}
		}
	}
}

// kept are the template versions of the ControllerRevisions left.
func (k *kube) kept() []int {
	var out []int
	for _, o := range k.revisions.List() {
		out = append(out, k.version(o.(*apps.ControllerRevision).Name))
	}
	slices.Sort(out)
	return out
}

// claimOrdinals are the ordinals that have a claim.
func (k *kube) claimOrdinals() map[int]bool {
	out := map[int]bool{}
	for name := range k.claims {
		out[ordinalOf(name)] = true
	}
	return out
}

func ordinalOf(name string) int {
	n, err := strconv.Atoi(name[strings.LastIndexByte(name, '-')+1:])
	if err != nil {
		panic(fmt.Sprintf("no ordinal in %q", name))
	}
	return n
}

// kubeSet is the StatefulSet for sp, with the API server's apps/v1 defaults;
// the template's image names its version.
func kubeSet(sp spec, status apps.StatefulSetStatus) *apps.StatefulSet {
	labels := map[string]string{"app": setName}
	s := &apps.StatefulSet{
		TypeMeta:   metav1.TypeMeta{Kind: "StatefulSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: setName, Namespace: v1.NamespaceDefault, UID: "set-uid"},
		Spec: apps.StatefulSetSpec{
			Replicas:    new(int32(sp.replicas)),
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			ServiceName: setName,
			Template: v1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: v1.PodSpec{Containers: []v1.Container{{Name: "app", Image: imageOf(sp.version),
					VolumeMounts: []v1.VolumeMount{{Name: "data", MountPath: "/data"}}}}},
			},
			VolumeClaimTemplates: []v1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}},
			PodManagementPolicy:  apps.OrderedReadyPodManagement,
			UpdateStrategy:       apps.StatefulSetUpdateStrategy{Type: apps.OnDeleteStatefulSetStrategyType},
			MinReadySeconds:      int32(sp.minReady),
			Ordinals:             &apps.StatefulSetOrdinals{Start: int32(sp.start)},
			PersistentVolumeClaimRetentionPolicy: &apps.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: apps.RetainPersistentVolumeClaimRetentionPolicyType,
				WhenScaled:  apps.RetainPersistentVolumeClaimRetentionPolicyType,
			},
		},
		Status: status,
	}
	if sp.parallel {
		s.Spec.PodManagementPolicy = apps.ParallelPodManagement
	}
	if sp.scaledDelete {
		s.Spec.PersistentVolumeClaimRetentionPolicy.WhenScaled = apps.DeletePersistentVolumeClaimRetentionPolicyType
	}
	if sp.deletedDelete {
		s.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = apps.DeletePersistentVolumeClaimRetentionPolicyType
	}
	s.Spec.RevisionHistoryLimit = new(int32(sp.historyLimit))
	if sp.recreate {
		s.Spec.UpdateStrategy = apps.StatefulSetUpdateStrategy{Type: apps.RecreateStatefulSetStrategyType}
	}
	if sp.rolling() {
		mu := intstr.Parse(sp.maxUnavailable)
		s.Spec.UpdateStrategy = apps.StatefulSetUpdateStrategy{Type: apps.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &apps.RollingUpdateStatefulSetStrategy{Partition: new(int32(sp.partition)), MaxUnavailable: &mu}}
	}
	appsdefaults.SetObjectDefaults_StatefulSet(s)
	return s
}

func imageOf(version int) string { return fmt.Sprintf("img:v%d", version) }

// pass runs one pass of the controller over pods at now, and keeps the
// status it returns for the next.
func (k *kube) pass(sp spec, pods []*v1.Pod, now time.Time) (*apps.StatefulSetStatus, error) {
	k.created, k.deleted = nil, nil
	var status apps.StatefulSetStatus
	if k.set != nil {
		status = k.set.Status
	}
	k.set = kubeSet(sp, status)
	st, err := k.ctl.UpdateStatefulSet(context.Background(), k.set, pods, now)
	if err != nil {
		return nil, err
	}
	k.set.Status = *st
	return st, nil
}

// version is the template version of a ControllerRevision, read from the
// image of the template it holds.
func (k *kube) version(revision string) int {
	if v, ok := k.versions[revision]; ok {
		return v
	}
	for _, o := range k.revisions.List() {
		r := o.(*apps.ControllerRevision)
		if r.Name != revision {
			continue
		}
		var patch struct {
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct{ Image string }
					}
				}
			}
		}
		if err := json.Unmarshal(r.Data.Raw, &patch); err != nil || len(patch.Spec.Template.Spec.Containers) == 0 {
			panic(fmt.Sprintf("revision %s: %v %s", revision, err, r.Data.Raw))
		}
		v, err := strconv.Atoi(strings.TrimPrefix(patch.Spec.Template.Spec.Containers[0].Image, "img:v"))
		if err != nil {
			panic(err)
		}
		k.versions[revision] = v
		return v
	}
	panic("no revision " + revision)
}

func podRevision(p *v1.Pod) string { return p.Labels[apps.ControllerRevisionHashLabelKey] }

package config

import (
	"testing"
	"time"
)

func TestAccessors(t *testing.T) {
	type want struct {
		replicas, maxUnavailable, history, partition, first, end int
		grace                                                    time.Duration
	}
	tests := []struct {
		name string
		set  Set
		want want
	}{
		{"defaults", Set{}, want{1, 1, 10, 0, 0, 1, 10 * time.Second}},
		{"explicit", Set{
			Replicas:                      ptr(5),
			UpdateStrategy:                UpdateStrategy{Type: RollingUpdate, RollingUpdate: RollingUpdateParams{Partition: 3, MaxUnavailable: "2"}},
			RevisionHistoryLimit:          ptr(0),
			TerminationGracePeriodSeconds: ptr(0),
			Ordinals:                      Ordinals{Start: 10},
		}, want{5, 2, 0, 3, 10, 15, 0}},
		{"percent rounds down", Set{Replicas: ptr(10), UpdateStrategy: UpdateStrategy{RollingUpdate: RollingUpdateParams{MaxUnavailable: "25%"}}},
			want{10, 2, 10, 0, 0, 10, 10 * time.Second}},
		{"percent at least one", Set{Replicas: ptr(3), UpdateStrategy: UpdateStrategy{RollingUpdate: RollingUpdateParams{MaxUnavailable: "10%"}}},
			want{3, 1, 10, 0, 0, 3, 10 * time.Second}},
		{"percent of zero replicas", Set{Replicas: ptr(0), UpdateStrategy: UpdateStrategy{RollingUpdate: RollingUpdateParams{MaxUnavailable: "100%"}}},
			want{0, 1, 10, 0, 0, 0, 10 * time.Second}},
		{"partition only under RollingUpdate", Set{UpdateStrategy: UpdateStrategy{Type: OnDelete, RollingUpdate: RollingUpdateParams{Partition: 3}}},
			want{1, 1, 10, 0, 0, 1, 10 * time.Second}},
	}
	for _, tt := range tests {
		s := tt.set
		got := want{s.DesiredReplicas(), s.MaxUnavailableCount(), s.HistoryLimit(), s.Partition(), s.FirstOrdinal(), s.EndOrdinal(), s.GracePeriod()}
		if got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
		// The same answers once defaults are applied.
		s = s.Clone()
		s.ApplyDefaults()
		got = want{s.DesiredReplicas(), s.MaxUnavailableCount(), s.HistoryLimit(), s.Partition(), s.FirstOrdinal(), s.EndOrdinal(), s.GracePeriod()}
		if got != tt.want {
			t.Errorf("%s after defaults: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestApplyDefaultsLeavesNoNilPointers(t *testing.T) {
	var s Set
	s.Name = "web"
	s.ApplyDefaults()
	if s.Replicas == nil || s.RevisionHistoryLimit == nil || s.TerminationGracePeriodSeconds == nil {
		t.Errorf("nil pointer after defaults: %+v", s)
	}
	if s.Template.Healthcheck != nil {
		t.Error("a healthcheck was made up: nil must keep meaning the image's own")
	}
	// Idempotent, and explicit values win.
	s.Network = "custom"
	before := s.Clone()
	s.ApplyDefaults()
	if s.Network != "custom" || s.ServiceName != "web" || *s.Replicas != *before.Replicas {
		t.Errorf("second ApplyDefaults changed the set: %+v", s)
	}
}

// IfNotPresent is the default for every reference, ":latest" and untagged ones
// included (Kubernetes would pull those Always).
func TestPullPolicy(t *testing.T) {
	for _, tt := range []struct{ image, policy, want string }{
		{"redis:7", "", PullIfNotPresent},
		{"redis", "", PullIfNotPresent},
		{"redis:latest", "", PullIfNotPresent},
		{"redis:latest", PullAlways, PullAlways},
		{"redis:7", PullNever, PullNever},
	} {
		s := Set{Name: "web", Template: Template{Image: tt.image, ImagePullPolicy: tt.policy}}
		if got := s.Template.PullPolicy(); got != tt.want {
			t.Errorf("%s with %q: PullPolicy() = %q, want %q", tt.image, tt.policy, got, tt.want)
		}
		s.ApplyDefaults()
		if s.Template.ImagePullPolicy != tt.policy {
			t.Errorf("%s: ApplyDefaults set imagePullPolicy %q: a stored set would change", tt.image, s.Template.ImagePullPolicy)
		}
	}
}

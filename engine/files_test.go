package engine_test

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// A replica whose healthcheck runs ostset's probe gets the probe program
// copied into its container at config.ProbePath (not bind-mounted from this
// host); the program's bytes are not part of the revision.
func TestProbeHealthcheckCopiesTheProbe(t *testing.T) {
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a",
		Healthcheck: &config.Healthcheck{Test: []string{"CMD", config.ProbePath, "probe", config.ProbeTCP, "127.0.0.1:80"}}}}
	s.ApplyDefaults()
	var revisions []string
	for _, bin := range []string{"probe v1", "probe v2"} {
		rt := enginetest.New()
		c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond,
			Probe: func(context.Context) ([]byte, error) { return []byte(bin), nil }}
		if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := c.Converge(ctx, "web"); err != nil {
			t.Fatal(err)
		}
		cancel()
		if len(rt.Created) != 1 {
			t.Fatalf("%d creates, want 1", len(rt.Created))
		}
		got := rt.Created[0]
		want := plan.File{Path: config.ProbePath, Data: []byte(bin), Mode: 0o755}
		if !slices.ContainsFunc(got.Files, func(f plan.File) bool { return reflect.DeepEqual(f, want) }) {
			t.Errorf("files %+v, want %+v among them", got.Files, want)
		}
		if len(got.Mounts) != 0 {
			t.Errorf("mounts %+v: the probe is copied, nothing is mounted", got.Mounts)
		}
		revisions = append(revisions, got.Revision)
	}
	if revisions[0] != revisions[1] {
		t.Errorf("revisions %v: the probe's bytes changed the revision", revisions)
	}
}

// A ConfigMap or Secret volume (a directory of the state directory's
// manifest-volumes) reaches a replica as files copied into its container,
// with the recorded mode, owner and group, and no bind mount of this host's path;
// a user's own bind mount stays one.
func TestConfigVolumeIsCopiedIntoTheReplica(t *testing.T) {
	store := state.Store{Dir: t.TempDir()}
	dir := filepath.Join(store.ConfigDir(), "web", "creds")
	if err := store.WriteConfigFiles([]config.ConfigFile{
		{Dir: dir, Name: "sub/password", Data: []byte("s3cr3t"), Mode: 0o440, GID: 2000},
		{Dir: dir, Name: "user", Data: []byte("app"), Mode: 0o644, UID: 1000, GID: 2000},
	}); err != nil {
		t.Fatal(err)
	}
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a", VolumeMounts: []config.VolumeMount{
		{Source: dir, Target: "/etc/creds", ReadOnly: true},
		{Source: "/srv/data", Target: "/data"},
	}}}
	s.ApplyDefaults()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond}
	if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Converge(ctx, "web"); err != nil {
		t.Fatal(err)
	}
	if len(rt.Created) != 1 {
		t.Fatalf("%d creates, want 1", len(rt.Created))
	}
	got := rt.Created[0]
	want := []plan.File{
		{Path: "/etc/creds", Dir: true, Mode: 0o755, GID: 2000},
		{Path: "/etc/creds/sub", Dir: true, Mode: 0o755, GID: 2000},
		{Path: "/etc/creds/sub/password", Data: []byte("s3cr3t"), Mode: 0o440, GID: 2000},
		{Path: "/etc/creds/user", Data: []byte("app"), Mode: 0o644, UID: 1000, GID: 2000},
	}
	if !reflect.DeepEqual(got.Files, want) {
		t.Errorf("files\n%+v\nwant\n%+v", got.Files, want)
	}
	if wantMounts := []plan.Mount{{Type: "bind", Source: "/srv/data", Target: "/data"}}; !reflect.DeepEqual(got.Mounts, wantMounts) {
		t.Errorf("mounts %+v, want only the user's %+v", got.Mounts, wantMounts)
	}
}

// Without a probe program to give, the create fails and says why, rather
// than create a replica whose probe cannot run.
func TestProbeHealthcheckWithoutBinaryFailsTheCreate(t *testing.T) {
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a",
		Healthcheck: &config.Healthcheck{Test: []string{"CMD", config.ProbePath, "probe", config.ProbeHTTP, "http://127.0.0.1:80/"}}}}
	s.ApplyDefaults()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.Converge(ctx, "web")
	if err == nil || !strings.Contains(err.Error(), "no probe program to give it") {
		t.Errorf("converge: %v, want the missing probe named", err)
	}
	if len(rt.Created) != 0 {
		t.Errorf("%d replicas created without the probe binary", len(rt.Created))
	}
}

// A liveness or startup probe that runs ostset's probe (a manifest's
// httpGet livenessProbe) gets the probe program copied in, as a healthcheck's does.
func TestLivenessProbeCopiesTheProbe(t *testing.T) {
	for _, field := range []string{"liveness", "startup"} {
		probe := &config.Healthcheck{Test: []string{"CMD", config.ProbePath, "probe", config.ProbeHTTP, "http://127.0.0.1:80/"}}
		s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a"}}
		if field == "liveness" {
			s.Template.Liveness = probe
		} else {
			s.Template.Startup = probe
		}
		s.ApplyDefaults()
		rt := enginetest.New()
		c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond,
			Probe: func(context.Context) ([]byte, error) { return []byte("probe"), nil }}
		if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
			t.Fatal(err)
		}
		wait := 10 * time.Second
		if field == "startup" {
			wait = 2 * time.Second // long enough for the create; the replica never gets ready
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		err := c.Converge(ctx, "web")
		cancel()
		if field == "startup" {
			// No process here runs the startup probe: the replica is never ready.
			if err == nil {
				t.Fatal("converged with a startup probe nobody ran")
			}
		} else if err != nil {
			t.Fatal(err)
		}
		if len(rt.Created) != 1 || !slices.ContainsFunc(rt.Created[0].Files, func(f plan.File) bool { return f.Path == config.ProbePath }) {
			t.Errorf("%s: created %+v, want the probe copied in", field, rt.Created)
		}
	}
}

package engine_test

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/config/envref"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/enginetest"
	"github.com/ostset/ostset/engine/state"
)

// A variable from a Secret's key gets its value, read from the state
// directory, in the replica's environment only: the stored set, the
// revision and the events hold the reference.
func TestEnvRefGivesTheReplicaTheValue(t *testing.T) {
	const value = "s3cr3t-Value"
	ref := envref.Ref{Kind: envref.Secret, Name: "db-auth", Key: "password", Digest: envref.Digest([]byte(value))}
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a",
		Env: map[string]string{"A": "1"}, EnvRefs: map[string]envref.Ref{"PW": ref}}}
	s.ApplyDefaults()
	store := state.Store{Dir: t.TempDir()}
	path := ref.Path(store.ConfigDir(), "web")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(value), 0o600); err != nil {
		t.Fatal(err)
	}
	rt := enginetest.New()
	var events []string
	c := &engine.Controller{Runtime: rt, Store: store, Poll: 5 * time.Millisecond,
		Report: func(e state.Event) { events = append(events, e.Message) }}
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
	env := rt.Created[0].Env
	if !slices.Contains(env, "PW="+value) || !slices.Contains(env, "A=1") || len(rt.Created[0].EnvRefs) != 0 {
		t.Errorf("env %q refs %v, want PW's value", env, rt.Created[0].EnvRefs)
	}
	if !slices.IsSortedFunc(env, func(a, b string) int { return strings.Compare(strings.Split(a, "=")[0], strings.Split(b, "=")[0]) }) {
		t.Errorf("env %q not sorted", env)
	}
	st, err := store.Load("web")
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := json.Marshal(st)
	for what, text := range map[string]string{"the stored set": string(stored), "the events": strings.Join(events, "\n"), "the labels": strings.Join(slices.Collect(maps.Values(rt.Created[0].Labels)), " ")} {
		if strings.Contains(text, value) {
			t.Errorf("%s hold the value: %s", what, text)
		}
	}
}

// Without the value in the state directory the create fails and says what
// to do; no replica starts without its Secret's variable.
func TestEnvRefWithoutTheValueFailsTheCreate(t *testing.T) {
	s := config.Set{Name: "web", Replicas: ptr(1), Template: config.Template{Image: "a",
		EnvRefs: map[string]envref.Ref{"PW": {Kind: envref.Secret, Name: "db-auth", Key: "password", Digest: "d"}}}}
	s.ApplyDefaults()
	rt := enginetest.New()
	c := &engine.Controller{Runtime: rt, Store: state.Store{Dir: t.TempDir()}, Poll: 5 * time.Millisecond}
	if _, err := c.Apply(context.Background(), s, "test", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err := c.Converge(ctx, "web")
	if err == nil || !strings.Contains(err.Error(), `the key "password" of Secret "db-auth" is not in`) {
		t.Errorf("converge: %v, want the missing value named", err)
	}
	if len(rt.Created) != 0 {
		t.Errorf("%d replicas created without the Secret's value", len(rt.Created))
	}
}

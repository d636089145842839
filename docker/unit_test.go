package docker

import (
	"context"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/api/types/volume"

	"github.com/ostset/ostset/docker/containerspec"
	"github.com/ostset/ostset/engine"
	"github.com/ostset/ostset/engine/plan"
)

func TestHealthFromStatus(t *testing.T) {
	for status, want := range map[string]string{
		"Up 2 seconds (healthy)":                   plan.HealthHealthy,
		"Up 3 minutes (unhealthy)":                 plan.HealthUnhealthy,
		"Up Less than a second (health: starting)": plan.HealthStarting,
		"Up 5 seconds":                             plan.HealthNone,
		"Exited (0) 3 seconds ago":                 plan.HealthNone,
		"Created":                                  plan.HealthNone,
	} {
		if got := healthFromStatus(status); got != want {
			t.Errorf("healthFromStatus(%q) = %q, want %q", status, got, want)
		}
	}
	withSummary := container.Summary{Status: "Up 1 second", Health: &container.HealthSummary{Status: container.Healthy}}
	if got := summaryHealth(withSummary); got != plan.HealthHealthy {
		t.Errorf("Summary.Health ignored: %q", got)
	}
	none := container.Summary{Status: "Up 1 second", Health: &container.HealthSummary{Status: container.NoHealthcheck}}
	if got := summaryHealth(none); got != plan.HealthNone {
		t.Errorf("Summary.Health none = %q", got)
	}
}

func TestClassify(t *testing.T) {
	var obs plan.Observed
	for _, c := range []container.Summary{
		{ID: "a", Names: []string{"/web-1", "/x/web-1"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "1", plan.LabelRevision: "web-1a"}, State: "running", Status: "Up 1 second (healthy)", Created: 100},
		{ID: "b", Names: []string{"/web-2"}, Labels: map[string]string{plan.LabelSet: "web"}, State: "exited"},
		{ID: "c", Names: []string{"/renamed"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "x"}},
		{ID: "d", Names: []string{"/web-3"}, Labels: map[string]string{plan.LabelSet: "db"}},
		{ID: "e", Names: []string{"/web-4"}},
		{ID: "f", Names: []string{"/web-04"}},
		{ID: "g", Names: []string{"/webby-1"}},
		{ID: "h", Names: []string{"/db-0"}, Labels: map[string]string{plan.LabelSet: "db", plan.LabelOrdinal: "0"}},
		{ID: "i", Names: []string{"/web-5"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "5", plan.LabelOwner: "o1", plan.LabelStateDir: "/s"}},
		// A compose job's container carries the set label of its name: it is no replica.
		{ID: "j", Names: []string{"/web-0"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "0", plan.LabelJob: "true"}},
		// Another job's, listed for its name: neither the set's nor a holder of a name it needs.
		{ID: "k", Names: []string{"/web-1-0"}, Labels: map[string]string{plan.LabelSet: "web-1", plan.LabelOrdinal: "0", plan.LabelJob: "true"}},
	} {
		classify(&obs, "web", c)
	}
	want := []plan.Replica{
		{ID: "a", Name: "web-1", Ordinal: 1, Revision: "web-1a", State: "running", Health: "healthy", Created: time.Unix(100, 0)},
		{ID: "b", Name: "web-2", Ordinal: 2, State: "exited", Created: time.Unix(0, 0)},
		{ID: "c", Name: "renamed", Ordinal: -1, Created: time.Unix(0, 0)},
		{ID: "i", Name: "web-5", Ordinal: 5, Created: time.Unix(0, 0), Owner: plan.Owner{ID: "o1", Dir: "/s"}},
	}
	if len(obs.Replicas) != len(want) {
		t.Fatalf("replicas %+v", obs.Replicas)
	}
	for i := range want {
		if !reflect.DeepEqual(obs.Replicas[i], want[i]) {
			t.Errorf("replica %d = %+v, want %+v", i, obs.Replicas[i], want[i])
		}
	}
	wantForeign := []plan.Foreign{{ID: "d", Name: "web-3", Owner: "db"}, {ID: "e", Name: "web-4"}, {ID: "j", Name: "web-0", Owner: "web", Job: true}}
	if !slices.Equal(obs.Foreign, wantForeign) {
		t.Errorf("foreign %+v, want %+v", obs.Foreign, wantForeign)
	}
}

func TestReadySince(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	probe := func(start float64, code int) *container.HealthcheckResult {
		return &container.HealthcheckResult{Start: at(start), End: at(start + 0.1), ExitCode: code}
	}
	state := func(status container.HealthStatus, log ...*container.HealthcheckResult) *container.State {
		st := &container.State{Running: true, StartedAt: t0.Format(time.RFC3339Nano)}
		if status != "" {
			st.Health = &container.Health{Status: status, Log: log}
		}
		return st
	}
	cases := []struct {
		name string
		st   *container.State
		want time.Time
	}{
		{"no healthcheck", state(""), t0},
		{"not running", &container.State{StartedAt: t0.Format(time.RFC3339Nano)}, time.Time{}},
		{"starting", state(container.Starting), time.Time{}},
		{"unhealthy", state(container.Unhealthy, probe(1, 1)), time.Time{}},
		{"first probe passed", state(container.Healthy, probe(1, 0), probe(2, 0)), at(1.1)},
		{"recovered", state(container.Healthy, probe(1, 0), probe(2, 1), probe(3, 0), probe(4, 0)), at(3.1)},
		{"probes of an earlier run ignored", state(container.Healthy, probe(-5, 0), probe(-4, 1), probe(1, 0)), at(1.1)},
		{"latest probe failed but still healthy", state(container.Healthy, probe(1, 0), probe(2, 1)), at(2.1)},
		{"log all before start", state(container.Healthy, probe(-2, 0)), time.Time{}},
		{"clamped to StartedAt", state(container.Healthy, &container.HealthcheckResult{Start: t0, End: at(-1)}), t0},
	}
	for _, c := range cases {
		if got := readySince(c.st); !got.Equal(c.want) {
			t.Errorf("%s: readySince = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRestartPolicy(t *testing.T) {
	for in, want := range map[string]container.RestartPolicy{
		"":               {},
		"no":             {Name: "no"},
		"always":         {Name: "always"},
		"unless-stopped": {Name: "unless-stopped"},
		"on-failure":     {Name: "on-failure"},
		"on-failure:5":   {Name: "on-failure", MaximumRetryCount: 5},
	} {
		if got, err := restartPolicy(in); err != nil || got != want {
			t.Errorf("restartPolicy(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"sometimes", "always:3", "on-failure:x", "on-failure:-1"} {
		if _, err := restartPolicy(bad); err == nil {
			t.Errorf("restartPolicy(%q) accepted", bad)
		}
	}
}

func TestPortMaps(t *testing.T) {
	exposed, bound, err := portMaps([]plan.PortBinding{
		{ContainerPort: 80, HostPort: 8080},
		{ContainerPort: 53, HostPort: 5353, HostIP: "127.0.0.1", Protocol: "UDP"},
		{ContainerPort: 9000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(exposed) != 3 || len(bound) != 2 {
		t.Fatalf("exposed %v bound %v", exposed, bound)
	}
	for p, bs := range bound {
		switch p.String() {
		case "80/tcp":
			if bs[0].HostPort != "8080" || bs[0].HostIP.IsValid() {
				t.Errorf("80/tcp -> %+v", bs)
			}
		case "53/udp":
			if bs[0].HostPort != "5353" || bs[0].HostIP.String() != "127.0.0.1" {
				t.Errorf("53/udp -> %+v", bs)
			}
		default:
			t.Errorf("unexpected binding %s", p)
		}
	}
	for _, bad := range []plan.PortBinding{{ContainerPort: 0}, {ContainerPort: 70000}, {ContainerPort: 1, Protocol: "icmp"}, {ContainerPort: 1, HostPort: 1, HostIP: "nope"}} {
		if _, _, err := portMaps([]plan.PortBinding{bad}); err == nil {
			t.Errorf("portMaps(%+v) accepted", bad)
		}
	}
}

func TestCreateOptionsLabels(t *testing.T) {
	spec := plan.ReplicaSpec{Set: "web", Name: "web-2", Ordinal: 2, Revision: "web-9f", Image: "sha256:x",
		Labels: map[string]string{"app": "x"}, StopTimeout: 10 * time.Second}
	opts, err := createOptions(spec)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := containerspec.Endpoint([]string{"web-2"}, "", "")
	if err != nil || ep.IPAMConfig != nil {
		t.Fatalf("endpoint %+v, %v", ep, err)
	}
	attach(&opts, "netid", ep)
	l := opts.Config.Labels
	if l[plan.LabelSet] != "web" || l[plan.LabelOrdinal] != "2" || l[plan.LabelRevision] != "web-9f" || l["app"] != "x" {
		t.Errorf("labels %v", l)
	}
	if spec.Labels[plan.LabelSet] != "" {
		t.Error("spec labels modified")
	}
	if *opts.Config.StopTimeout != 10 || opts.Config.Healthcheck != nil || opts.Config.Cmd != nil {
		t.Errorf("config %+v", opts.Config)
	}
	if ep := opts.NetworkingConfig.EndpointsConfig["netid"]; ep == nil || ep.Aliases[0] != "web-2" || opts.HostConfig.NetworkMode != "netid" {
		t.Errorf("network %+v %v", opts.NetworkingConfig, opts.HostConfig.NetworkMode)
	}
	spec.Labels[plan.LabelSet] = "db"
	if _, err := createOptions(spec); err == nil || !strings.Contains(err.Error(), "io.ostset.set") {
		t.Errorf("conflicting set label accepted: %v", err)
	}
}

func TestCheckVolume(t *testing.T) {
	want := map[string]string{plan.LabelSet: "web", plan.LabelClaim: "data", plan.LabelOrdinal: "0", "extra": "ignored"}
	ok := volume.Volume{Name: "data-web-0", Labels: map[string]string{plan.LabelSet: "web", plan.LabelClaim: "data", plan.LabelOrdinal: "0"}}
	if err := checkVolume(context.Background(), ok, "web", want); err != nil {
		t.Error(err)
	}
	for _, labels := range []map[string]string{
		nil,
		{plan.LabelSet: "db", plan.LabelClaim: "data", plan.LabelOrdinal: "0"},
		{plan.LabelSet: "web", plan.LabelClaim: "logs", plan.LabelOrdinal: "0"},
		{plan.LabelSet: "web", plan.LabelClaim: "data", plan.LabelOrdinal: "1"},
	} {
		err := checkVolume(context.Background(), volume.Volume{Name: "data-web-0", Labels: labels}, "web", want)
		if err == nil || !strings.Contains(err.Error(), "volume data-web-0 exists and does not belong to set web") {
			t.Errorf("labels %v: %v", labels, err)
		}
	}
}

// A volume of the set that another state directory made is refused, whatever
// the engine planned; one without an owner label (made before owner labels),
// this state directory's own and an adopted owner's are used.
func TestCheckVolumeOwner(t *testing.T) {
	self := plan.Owner{ID: "self", Dir: "/here"}
	want := map[string]string{plan.LabelSet: "web", plan.LabelClaim: "data", plan.LabelOrdinal: "0", plan.LabelOwner: self.ID}
	withOwner := func(id string) volume.Volume {
		l := map[string]string{plan.LabelSet: "web", plan.LabelClaim: "data", plan.LabelOrdinal: "0"}
		if id != "" {
			l[plan.LabelOwner], l[plan.LabelStateDir] = id, "/there"
		}
		return volume.Volume{Name: "data-web-0", Labels: l}
	}
	ctx := engine.WithOwnership(context.Background(), plan.Ownership{Self: self, Adopted: []plan.Owner{{ID: "adopted"}}})
	for _, id := range []string{"", "self", "adopted"} {
		if err := checkVolume(ctx, withOwner(id), "web", want); err != nil {
			t.Errorf("owner %q: %v", id, err)
		}
	}
	for _, c := range []context.Context{ctx, context.Background()} {
		err := checkVolume(c, withOwner("other"), "web", want)
		if err == nil || !strings.Contains(err.Error(), "volume data-web-0 exists and is not this state directory's: it belongs to state directory /there (id other)") {
			t.Errorf("another owner's volume: %v", err)
		}
	}
}

func TestSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 0, -time.Second: 0, time.Millisecond: 1, time.Second: 1, 1500 * time.Millisecond: 2, 10 * time.Second: 10} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%s) = %d, want %d", d, got, want)
		}
	}
}

// Init containers are classified by their io.ostset.init label into their
// ordinal: they are neither replicas nor foreign. A container without the set's
// label holding an init container's name is foreign.
func TestClassifyInitContainers(t *testing.T) {
	var obs plan.Observed
	for _, c := range []container.Summary{
		{ID: "a", Names: []string{"/web-1-init-clone"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "1",
			plan.LabelRevision: "web-1a", plan.LabelInit: "clone", plan.LabelOwner: "o1"}, State: "exited", Status: "Exited (3) 2 seconds ago", Created: 100},
		{ID: "b", Names: []string{"/web-2-init-chown"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelInit: "chown"}, State: "running", Status: "Up 1 second"},
		{ID: "c", Names: []string{"/odd"}, Labels: map[string]string{plan.LabelSet: "web", plan.LabelInit: "x"}, State: "exited", Status: "Exited (0) 1 second ago"},
		{ID: "d", Names: []string{"/web-0-init-clone"}},
		{ID: "e", Names: []string{"/web-0-initial"}},
	} {
		classify(&obs, "web", c)
	}
	want := []plan.InitContainer{
		{ID: "a", Name: "web-1-init-clone", Ordinal: 1, Init: "clone", Revision: "web-1a", State: "exited", ExitCode: 3, Created: time.Unix(100, 0), Owner: plan.Owner{ID: "o1"}},
		{ID: "b", Name: "web-2-init-chown", Ordinal: 2, Init: "chown", State: "running", Created: time.Unix(0, 0)},
		{ID: "c", Name: "odd", Ordinal: -1, Init: "x", State: "exited", Created: time.Unix(0, 0)},
	}
	if len(obs.Replicas) != 0 || !reflect.DeepEqual(obs.Inits, want) {
		t.Errorf("replicas %+v\ninits %+v\nwant %+v", obs.Replicas, obs.Inits, want)
	}
	if len(obs.Foreign) != 1 || obs.Foreign[0].Name != "web-0-init-clone" {
		t.Errorf("foreign %+v", obs.Foreign)
	}
}

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		state  container.ContainerState
		status string
		want   int
	}{
		{"exited", "Exited (0) 3 seconds ago", 0},
		{"exited", "Exited (137) About a minute ago", 137},
		{"exited", "Exited (-1) now", -1},
		{"exited", "gone", -1},
		{"running", "Up 2 seconds", 0},
	} {
		if got := exitCode(container.Summary{State: tt.state, Status: tt.status}); got != tt.want {
			t.Errorf("exitCode(%s, %q) = %d, want %d", tt.state, tt.status, got, tt.want)
		}
	}
}

// An init container's spec keeps its replica's hostname, has no aliases and is
// never restarted by Docker.
func TestCreateOptionsInit(t *testing.T) {
	spec := plan.ReplicaSpec{Set: "web", Name: "web-2-init-clone", Hostname: "web-2", Ordinal: 2, Image: "sha256:x",
		Labels: map[string]string{plan.LabelInit: "clone"}, Restart: "no", Healthcheck: &plan.Healthcheck{Test: []string{"NONE"}}}
	opts, err := createOptions(spec)
	if err != nil {
		t.Fatal(err)
	}
	ep, _ := containerspec.Endpoint(nil, "", "")
	attach(&opts, "netid", ep)
	if opts.Name != "web-2-init-clone" || opts.Config.Hostname != "web-2" || opts.Config.Labels[plan.LabelInit] != "clone" ||
		opts.HostConfig.RestartPolicy.Name != container.RestartPolicyDisabled || opts.Config.Healthcheck.Test[0] != "NONE" {
		t.Errorf("options %+v %+v %+v", opts.Config, opts.HostConfig.RestartPolicy, opts.Name)
	}
	if ep := opts.NetworkingConfig.EndpointsConfig["netid"]; ep == nil || len(ep.Aliases) != 0 {
		t.Errorf("aliases %+v", ep)
	}
}

// A per-ordinal volume's mount carries the labels the volume is created with,
// so a volume removed between the observation and the create comes back
// labelled, never bare; other mounts are left alone.
func TestCreateOptionsVolumeLabels(t *testing.T) {
	spec := plan.ReplicaSpec{Set: "web", Name: "web-1", Image: "sha256:x",
		Volumes: []plan.VolumeSpec{{Name: "data-web-1", Driver: "local", Labels: map[string]string{plan.LabelClaim: "data", plan.LabelOrdinal: "1"}}},
		Mounts: []plan.Mount{
			{Type: "volume", Source: "data-web-1", Target: "/data"},
			{Type: "volume", Source: "shared", Target: "/shared"},
		}}
	opts, err := createOptions(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := opts.HostConfig.Mounts
	if m[0].VolumeOptions == nil || m[0].VolumeOptions.Labels[plan.LabelSet] != "web" || m[0].VolumeOptions.Labels[plan.LabelClaim] != "data" ||
		m[0].VolumeOptions.DriverConfig == nil || m[0].VolumeOptions.DriverConfig.Name != "local" {
		t.Errorf("per-ordinal volume mount %+v", m[0])
	}
	if m[1].VolumeOptions != nil {
		t.Errorf("shared volume mount given options: %+v", m[1].VolumeOptions)
	}
	if m[0].VolumeOptions.NoCopy {
		t.Error("a claim without nocopy is mounted with nocopy")
	}
	spec.Volumes[0].NoCopy = true
	if opts, err = createOptions(spec); err != nil || !opts.HostConfig.Mounts[0].VolumeOptions.NoCopy {
		t.Errorf("a claim with nocopy: %v, %+v", err, opts.HostConfig.Mounts[0].VolumeOptions)
	}
}

// Only a container carrying every identity label a create would give it is
// taken for that create's own: set, ordinal, revision, init container, owner.
func TestNotCreatedFor(t *testing.T) {
	spec := plan.ReplicaSpec{Set: "web", Ordinal: 1, Revision: "web-abc", Labels: map[string]string{
		plan.LabelSet: "web", plan.LabelOrdinal: "1", plan.LabelRevision: "web-abc", plan.LabelOwner: "own1",
	}}
	ours := map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "1", plan.LabelRevision: "web-abc", plan.LabelOwner: "own1", "user": "x"}
	if why := notCreatedFor(spec, ours); why != "" {
		t.Fatalf("our own container refused: %s", why)
	}
	for _, tc := range []struct {
		name, key, value, want string
	}{
		{"unlabelled", plan.LabelSet, "", `no io.ostset.set label`},
		{"another set", plan.LabelSet, "db", `label io.ostset.set is "db", not "web"`},
		{"another ordinal", plan.LabelOrdinal, "2", `label io.ostset.ordinal is "2"`},
		{"another revision", plan.LabelRevision, "web-old", `label io.ostset.revision is "web-old"`},
		{"another owner", plan.LabelOwner, "own2", `label io.ostset.owner is "own2"`},
		{"an init container", plan.LabelInit, "clone", `label io.ostset.init is "clone", not ""`},
		{"a compose job's container", plan.LabelJob, "true", `label io.ostset.job is "true", not ""`},
	} {
		labels := maps.Clone(ours)
		if tc.value == "" {
			delete(labels, tc.key)
		} else {
			labels[tc.key] = tc.value
		}
		if why := notCreatedFor(spec, labels); !strings.Contains(why, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.name, why, tc.want)
		}
	}
	if why := notCreatedFor(plan.ReplicaSpec{Name: "web-1", Ordinal: 1}, map[string]string{}); why == "" {
		t.Error("a spec without identity labels took an unlabelled container for its own")
	}
}

// A running replica carries the networks it has an endpoint on (none: an
// empty list); a stopped one, or one listed without network settings, carries
// nil, which the planner does not judge.
func TestClassifyNetworks(t *testing.T) {
	two := &container.NetworkSettingsSummary{Networks: map[string]*network.EndpointSettings{"net": {}, "bridge": {}}}
	labels := map[string]string{plan.LabelSet: "web", plan.LabelOrdinal: "0"}
	for _, tc := range []struct {
		name  string
		state container.ContainerState
		ns    *container.NetworkSettingsSummary
		want  []string
	}{
		{"attached", container.StateRunning, two, []string{"bridge", "net"}},
		{"no network at all", container.StateRunning, &container.NetworkSettingsSummary{}, []string{}},
		{"stopped", container.StateExited, two, nil},
		{"no settings", container.StateRunning, nil, nil},
	} {
		var obs plan.Observed
		classify(&obs, "web", container.Summary{ID: "a", Names: []string{"/web-0"}, Labels: labels, State: tc.state, NetworkSettings: tc.ns})
		if len(obs.Replicas) != 1 {
			t.Fatalf("%s: %+v", tc.name, obs.Replicas)
		}
		got := obs.Replicas[0].Networks
		if !slices.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: networks %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func TestAPIBelow(t *testing.T) {
	for _, tc := range []struct {
		version string
		below   bool
	}{{"1.41", true}, {"1.43", true}, {"1.44", false}, {"1.52", false}, {"2.0", false}, {"", true}} {
		if got := apiBelow(tc.version, 1, 44); got != tc.below {
			t.Errorf("apiBelow(%q, 1.44) = %v, want %v", tc.version, got, tc.below)
		}
	}
}

// A compose job's container carries the set label of its name but is no
// set's: a port it holds is not taken for the set's own.
func TestSetOf(t *testing.T) {
	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{plan.LabelSet: "web"}, "web"},
		{map[string]string{plan.LabelSet: "web", plan.LabelJob: "true"}, ""},
		{nil, ""},
	} {
		if got := setOf(c.labels); got != c.want {
			t.Errorf("setOf(%v) = %q, want %q", c.labels, got, c.want)
		}
	}
}

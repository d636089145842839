//go:build integration

package integration

import (
	"fmt"
	"strings"
	"testing"
)

// pullSpec is a small set whose image comes from a registry; {{POLICY}} is
// its imagePullPolicy. The document starts on line 2. Its replicas start and
// roll together: these tests are about images, not ordering.
const pullSpec = `
name: {{SET}}
replicas: 2
network: {{NET}}
podManagementPolicy: Parallel
updateStrategy:
  rollingUpdate:
    maxUnavailable: 2
terminationGracePeriodSeconds: 2
template:
  image: {{IMAGE}}
  imagePullPolicy: {{POLICY}}
  healthcheck:
    test: ["CMD", "/web", "health"]
    interval: 500ms
    timeout: 1s
    retries: 1
`

func (h *harness) writePullSpec(image, policy string) string {
	return h.writeSpec(pullSpec, image, "{{POLICY}}", policy)
}

// noCredentials keeps the machine's own Docker credentials out of the test.
func (h *harness) noCredentials() string {
	dir := h.t.TempDir()
	h.env = []string{"DOCKER_CONFIG=" + dir}
	return dir
}

func (h *harness) updateRevision() string {
	var st struct{ UpdateRevision string }
	h.statusJSON(&st)
	return st.UpdateRevision
}

// allRun asserts that every replica of the set runs image id.
func (h *harness) allRun(id string, replicas int) {
	h.t.Helper()
	images := h.replicaImages()
	if len(images) != replicas {
		h.t.Fatalf("replicas %v, want %d", images, replicas)
	}
	for name, got := range images {
		if got != id {
			h.t.Errorf("%s runs %s, want %s", name, got, id)
		}
	}
}

// An image that is not present locally is pulled from its registry, with
// progress, and the replicas run it; once present, it is not pulled again.
func TestUpPullsMissingImage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := startRegistry(t, "", "")
	h.noCredentials()
	ref, id := h.pushImage(reg, "v1", "a")
	if got := h.localImageID(ref); got != "" {
		t.Fatalf("%s is still present locally (%s)", ref, got)
	}

	spec := h.writePullSpec(ref, "IfNotPresent")
	r := h.mustOstset("up", "-f", spec)
	for _, want := range []string{h.set + ": pulling " + ref + "\n", h.set + ": pulled " + ref + " ("} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if got := h.localImageID(ref); got != id {
		t.Errorf("%s is %q locally after the pull, want %s", ref, got, id)
	}
	h.allRun(id, 2)

	r = h.mustOstset("up", "-f", spec)
	if strings.Contains(r.stdout, "pull") || !strings.Contains(r.stdout, "unchanged") {
		t.Errorf("a present image under IfNotPresent: want no pull and an unchanged revision:\n%s", r.stdout)
	}
}

// Always pulls at every up: an image pushed anew under the same tag rolls the
// set, which IfNotPresent, finding the tag present, does not.
func TestUpPullAlwaysRollsToTheRegistryImage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := startRegistry(t, "", "")
	h.noCredentials()
	ref, idA := h.pushImage(reg, "v1", "a")
	h.mustOstset("up", "-f", h.writePullSpec(ref, "Always"))
	h.allRun(idA, 2)
	revA := h.updateRevision()

	// The registry now has B under the tag; locally the tag still names A.
	_, idB := h.pushImage(reg, "v1", "b")
	h.docker("tag", idA, ref)

	r := h.mustOstset("up", "-f", h.writePullSpec(ref, "IfNotPresent"))
	if strings.Contains(r.stdout, "pull") || h.updateRevision() != revA {
		t.Errorf("IfNotPresent with the tag present: want no pull and revision %s:\n%s", revA, r)
	}
	h.allRun(idA, 2)

	r = h.mustOstset("up", "-f", h.writePullSpec(ref, "Always"))
	revB := h.updateRevision()
	if revB == revA || !strings.Contains(r.stdout, "new revision "+revB) {
		t.Errorf("Always after a new push: want a new revision, got %s:\n%s", revB, r)
	}
	if got := h.localImageID(ref); got != idB {
		t.Errorf("%s is %s locally, want the pushed %s", ref, got, idB)
	}
	h.allRun(idB, 2)

	r = h.mustOstset("up", "-f", h.writePullSpec(ref, "Always"))
	if !strings.Contains(r.stdout, "pulled "+ref+" (up to date)") || h.updateRevision() != revB {
		t.Errorf("Always with nothing new: want an up-to-date pull and revision %s:\n%s", revB, r)
	}
}

// A missing image under Never, and a tag the registry does not have, are
// invalid input at the set's file and line; nothing is created.
func TestUpImageFailuresExitTwo(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := startRegistry(t, "", "")
	h.noCredentials()
	missing := fmt.Sprintf("%s/%s/web:absent", reg.addr, h.set)

	spec := h.writePullSpec(missing, "Never")
	r := h.ostset("up", "-f", spec)
	want := fmt.Sprintf("%s: template.image: %s: not present locally, and imagePullPolicy is Never", lineOf(t, spec, "  image:"), missing)
	if r.code != 2 || !strings.Contains(r.stderr, want) || strings.Contains(r.stdout, "pull") {
		t.Errorf("Never with a missing image: want exit 2, no pull and %q:\n%s", want, r)
	}

	spec = h.writePullSpec(missing, "IfNotPresent")
	r = h.ostset("up", "-f", spec)
	want = fmt.Sprintf("%s: template.image: %s: ", lineOf(t, spec, "  image:"), missing)
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "manifest unknown") {
		t.Errorf("unknown tag: want exit 2 with %q and the registry's \"manifest unknown\":\n%s", want, r)
	}
	if !strings.Contains(r.stdout, "pull of "+missing+" failed after") {
		t.Errorf("the failed pull is not reported on stdout:\n%s", r.stdout)
	}
	if names := h.replicaNames(); len(names) != 0 {
		t.Errorf("replicas created without an image: %v", names)
	}
}

// A registry with basic auth: the pull authenticates with the credentials of
// the Docker config (DOCKER_CONFIG), and fails clearly without them.
func TestUpPullWithCredentials(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	reg := startRegistry(t, "ostset", "s3cret")
	ref, id := h.pushImage(reg, "v1", "a")
	spec := h.writePullSpec(ref, "IfNotPresent")

	empty := h.noCredentials()
	r := h.ostset("up", "-f", spec)
	want := fmt.Sprintf("%s: template.image: %s: ", lineOf(t, spec, "  image:"), ref)
	hint := fmt.Sprintf("(no credentials for %s in %s/config.json)", reg.addr, empty)
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "no basic auth credentials") || !strings.Contains(r.stderr, hint) {
		t.Errorf("no credentials: want exit 2 with %q, the engine's refusal and %q:\n%s", want, hint, r)
	}

	h.env = []string{"DOCKER_CONFIG=" + dockerConfigDir(t, reg.addr, "ostset", "wrong")}
	r = h.ostset("up", "-f", spec)
	if r.code != 2 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "unauthorized: authentication required") {
		t.Errorf("wrong password: want exit 2 with %q and the registry's \"unauthorized: authentication required\":\n%s", want, r)
	}

	h.env = []string{"DOCKER_CONFIG=" + reg.config}
	h.mustOstset("up", "-f", spec)
	h.allRun(id, 2)
}

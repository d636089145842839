package main

import (
	"context"
	"strings"
	"testing"
)

// describe shows what a set has, not every field it could have: no empty
// strings, nulls, [] or {} in its spec, no Source line without a source.
func TestDescribeLeavesOutEmptyFields(t *testing.T) {
	f := newFakeCLI(t)
	if _, _, err := f.run(context.Background(), "up", "-f", writeSet(t, "2"), "--progress", "plain"); err != nil {
		t.Fatal(err)
	}
	out, _, err := f.run(context.Background(), "describe", "web")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(out, "\n") {
		v := strings.TrimSpace(line)
		if strings.HasSuffix(v, ": null") || strings.HasSuffix(v, ": []") || strings.HasSuffix(v, ": {}") || strings.HasSuffix(v, `: ""`) || strings.HasSuffix(v, "resources:") {
			t.Errorf("an empty field: %q", line)
		}
	}
	for _, want := range []string{"  template:\n      image: x\n      restartPolicy: unless-stopped\n", "partition: 0", "autoRollback: false"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
}

package docker

import (
	"context"
	"fmt"
	"time"

	"github.com/moby/moby/client"
)

// About describes the engine of the docker context named (or the one the
// docker CLI would use, when name is ""): where it is, how it was chosen, and
// what it is when it answers within a few seconds. For `ostset version`.
func About(ctx context.Context, name string) string {
	r, err := Connect(name)
	if err != nil {
		return "engine: " + err.Error()
	}
	defer func() { _ = r.Close() }()
	out := "engine: " + r.where()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := r.cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return out + "\nengine version: not answering: " + err.Error()
	}
	product := v.Version
	if v.Platform.Name != "" {
		product = v.Platform.Name + " " + v.Version
	}
	return out + fmt.Sprintf("\nengine version: %s (API %s, %s/%s)", product, v.APIVersion, v.Os, v.Arch)
}

package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ostset/ostset/engine/plan"
)

// resolveEnv adds to spec.Env the values of the variables that refer to keys
// of a manifest's Secrets and ConfigMaps, read from the state directory just
// before the create: no plan, event or log line holds them, only the
// container's environment, as in a pod.
func (c *Controller) resolveEnv(spec *plan.ReplicaSpec) error {
	if len(spec.EnvRefs) == 0 {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(spec.EnvRefs)) {
		v, err := c.Store.EnvValue(spec.Set, spec.EnvRefs[name])
		if err != nil {
			return fmt.Errorf("%s: env %s: %w", spec.Name, name, err)
		}
		spec.Env = append(spec.Env, name+"="+v)
	}
	slices.SortFunc(spec.Env, func(a, b string) int {
		ka, _, _ := strings.Cut(a, "=")
		kb, _, _ := strings.Cut(b, "=")
		return strings.Compare(ka, kb)
	})
	spec.EnvRefs = nil
	return nil
}

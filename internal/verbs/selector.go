package verbs

import (
	"fmt"
	"maps"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/ostset/ostset/engine/plan"
	"github.com/ostset/ostset/engine/state"
)

// selectorLogs adds kubectl's -l SELECTOR to logs: the logs of every replica
// of every set whose labels the selector matches (see setLabels), each line
// prefixed with its replica's name, with logs' own flags (-f, --tail,
// --since).
func selectorLogs(logs *cobra.Command, env Env) {
	var selector string
	logs.Flags().StringVarP(&selector, "selector", "l", "", "the replicas of every set whose labels match this selector (kubectl's: app=web,tier!=cache)")
	args, run := logs.Args, logs.RunE
	logs.Args = func(cmd *cobra.Command, a []string) error {
		if selector == "" {
			return args(cmd, a)
		}
		if len(a) > 0 {
			return invalidf("logs: give SETs or -l SELECTOR, not both")
		}
		return nil
	}
	logs.RunE = func(cmd *cobra.Command, a []string) error {
		if selector == "" {
			return run(cmd, a)
		}
		sel, err := labels.Parse(selector)
		if err != nil {
			return invalidf("-l %s: %v", selector, err)
		}
		sets, err := env.Sets()
		if err != nil {
			return err
		}
		var matched []string
		for _, set := range sets {
			st, err := env.Load(set)
			if err != nil {
				continue // deleted since the listing
			}
			if sel.Matches(labels.Set(setLabels(st))) {
				matched = append(matched, set)
			}
		}
		if len(matched) == 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "no set's labels match %s\n", selector)
			return nil // as kubectl logs -l: nothing to print is no failure
		}
		return run(cmd, matched)
	}
}

// setLabels are the labels a selector matches a set by: its replicas' labels
// (template.labels: a Kubernetes pod template's labels, a compose service's
// labels with its project and service), the selector of a Kubernetes
// StatefulSet (matchLabels, which its pods carry), the StatefulSet's own
// labels, and io.ostset.set=SET, as every replica container is labelled.
func setLabels(st state.State) map[string]string {
	out := map[string]string{}
	if k := st.Spec.Kubernetes; k != nil {
		maps.Copy(out, k.Labels)
		maps.Copy(out, k.Selector)
	}
	maps.Copy(out, st.Spec.Template.Labels)
	out[plan.LabelSet] = st.Spec.Name
	return out
}

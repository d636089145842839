package verbs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/client-go/util/jsonpath"
)

// getOutputs adds kubectl's -o name and -o jsonpath=TEMPLATE to get: both
// read what get -o json prints (the sets, or SET's replicas), as a kubectl
// List: -o name prints one name a line (a set's, or a replica's, as the other
// commands take them), -o jsonpath the template over {"items": [...]}.
func getOutputs(get *cobra.Command, env Env) {
	run := get.RunE
	get.RunE = func(cmd *cobra.Command, args []string) error {
		output, _ := cmd.Flags().GetString("output")
		tmpl, isPath := strings.CutPrefix(output, "jsonpath=")
		if output != "name" && !isPath {
			return run(cmd, args)
		}
		if w, _ := cmd.Flags().GetBool("watch"); w {
			return invalidf("-o %s cannot be watched; use -o json -w (one object per line)", output)
		}
		var jp *jsonpath.JSONPath
		if isPath {
			jp = jsonpath.New("get")
			if err := jp.Parse(tmpl); err != nil {
				return invalidf("-o jsonpath=%s: %v", tmpl, err)
			}
		}
		var buf bytes.Buffer
		if p, _ := cmd.Flags().GetString("project-name"); p != "" {
			args = append(slices.Clone(args), "-p", p)
		}
		if err := env.Run(cmd.Context(), slices.Concat([]string{"get"}, args, []string{"-o", "json"}, inherited(cmd)), &buf); err != nil {
			return err
		}
		var items []map[string]any
		if err := json.Unmarshal(buf.Bytes(), &items); err != nil {
			return fmt.Errorf("get -o json: %w", err)
		}
		if jp != nil {
			if err := jp.Execute(cmd.OutOrStdout(), map[string]any{"kind": "List", "items": items}); err != nil {
				return invalidf("-o jsonpath=%s: %v", tmpl, err)
			}
			return nil
		}
		for _, it := range items {
			fmt.Fprintln(cmd.OutOrStdout(), it["name"])
		}
		return nil
	}
}

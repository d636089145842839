package main

import (
	"github.com/spf13/cobra"

	"github.com/ostset/ostset/kube"
)

func newConvertCmd(a *app) *cobra.Command {
	var files []string
	var storage string
	cmd := &cobra.Command{
		Use:   "convert -f FILE [-f FILE...]",
		Short: "Write the sets in set files as Kubernetes manifests, without Docker",
		Long: `Read set files and write, for each set, an apps/v1 StatefulSet and its
headless v1 Service to stdout, as 'ostset export' does for a set ostset runs.
What Kubernetes cannot express is listed on stderr, one line per field, and
kept in the StatefulSet's ostset.io/set-fields annotation for 'ostset up -f'.`,
		Example: `  ostset convert -f set.yaml > k8s.yaml
  ostset convert -f set.yaml --storage 10Gi | kubectl apply -f -`,
		Args: exactArgs(0),
		RunE: func(*cobra.Command, []string) error {
			if len(files) == 0 {
				return invalidf("convert: -f FILE is required")
			}
			if err := kube.CheckStorage(storage); err != nil {
				return invalidf("--storage: %w", err)
			}
			sets, err := a.loadFiles(files, false)
			if err != nil {
				return err
			}
			return a.writeManifests(sets, kube.ExportOptions{Storage: storage}, true)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "set file (YAML, one or more documents)")
	storageFlag(cmd, &storage)
	return cmd
}

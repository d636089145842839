package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/kube"
)

func newConvertCmd(a *app) *cobra.Command {
	var files []string
	var storage, output string
	var lenient, strict bool
	var cf composeFlags
	cmd := &cobra.Command{
		Use:   "convert -f FILE [-f FILE...]",
		Short: "Write the sets in set files as Kubernetes manifests, without Docker",
		Long: `Read set files and write, for each set, an apps/v1 StatefulSet and its
headless v1 Service to stdout, as 'ostset export' does for a set ostset runs.
What Kubernetes cannot express is listed on stderr, one line per field, and
kept in the StatefulSet's ostset.io/set-fields annotation for 'ostset up -f'.

A compose file is converted too: each service becomes a set, written as
Kubernetes manifests (a StatefulSet with per-ordinal claims) or, with -o
yaml, as set files.`,
		Example: `  ostset convert -f set.yaml > k8s.yaml
  ostset convert -f set.yaml --storage 10Gi | kubectl apply -f -
  ostset convert -f compose.yaml -o yaml > sets.yaml`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(files) == 0 {
				return invalidf("convert: -f FILE is required")
			}
			if err := kube.CheckStorage(storage); err != nil {
				return invalidf("--storage: %w", err)
			}
			if err := checkFormat(output, "kubernetes", "k8s", "yaml"); err != nil {
				return err
			}
			isCompose, err := composeFiles(files)
			if err != nil {
				return err
			}
			var sets []config.Set
			if isCompose {
				p, err := a.loadCompose(cmd.Context(), files, cf, lenient)
				if err != nil {
					return err
				}
				sets = p.Sets
				if output != "yaml" {
					var objects []byte
					var warnings []string
					sets, objects, warnings = p.ForKubernetes()
					for _, w := range warnings {
						a.warn(w)
					}
					if _, err := a.stdout.Write(objects); err != nil { // the Secrets and ConfigMaps, before the sets
						return err
					}
				}
				for _, j := range p.Jobs {
					a.warn(j.Name + ": runs once per up (service_completed_successfully), not as a set: left out")
				}
			} else if sets, err = a.loadFiles(files, lenient, strict, false); err != nil {
				return err
			}
			if output == "yaml" {
				return a.writeSetFiles(sets)
			}
			return a.writeManifests(sets, kube.ExportOptions{Storage: storage}, true)
		},
	}
	cmd.Flags().StringArrayVarP(&files, "file", "f", nil, "set file (YAML, one or more documents)")
	storageFlag(cmd, &storage)
	cmd.Flags().StringVarP(&output, "output", "o", "kubernetes", "kubernetes (StatefulSets and Services) or yaml (set files)")
	cmd.Flags().BoolVar(&lenient, "lenient", false, "go on when a compose file or Kubernetes manifest has fields ostset cannot map: warn about each")
	strictFlag(cmd, &strict)
	cf.register(cmd)
	return cmd
}

// writeSetFiles writes the sets as set file documents.
func (a *app) writeSetFiles(sets []config.Set) error {
	for i, s := range sets {
		out, err := config.MarshalSetFile(s)
		if err != nil {
			return err
		}
		if i > 0 {
			fmt.Fprintln(a.stdout, "---")
		}
		if _, err := a.stdout.Write(out); err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"bytes"

	"github.com/spf13/cobra"

	"github.com/ostset/ostset/config"
	"github.com/ostset/ostset/internal/present"
	"github.com/ostset/ostset/kube"
)

func newExportCmd(a *app) *cobra.Command {
	var output, storage string
	cmd := &cobra.Command{
		Use:   "export SET [-o kubernetes|yaml|json]",
		Short: "Write a set as Kubernetes manifests (a StatefulSet and its headless Service), or as a set file",
		Long: `Write the set's desired spec, as ostset stores it, to stdout.

-o kubernetes (the default) writes an apps/v1 StatefulSet and its headless v1
Service, which a cluster accepts (kubectl apply -f). Each field Kubernetes
cannot express (host ports, bind mounts, Docker-only settings, templates other
than {{.Set}}, {{.Ordinal}}, {{.Name}} and {{.Service}}) is listed on stderr,
one line each; the StatefulSet keeps those fields in its ostset.io/set-fields
annotation, so that 'ostset up -f' of the manifest gives back the same set and
the same revision. -o yaml writes the set file, -o json the set as JSON.`,
		Example: `  ostset export web > web-k8s.yaml
  ostset export web --storage 10Gi | kubectl apply -f -
  ostset export web -o yaml > web.yaml`,
		Args: exactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := checkFormat(output, "kubernetes", "k8s", "yaml", "json"); err != nil {
				return err
			}
			if err := kube.CheckStorage(storage); err != nil {
				return invalidf("--storage: %w", err)
			}
			st, err := a.store().Load(args[0])
			if err != nil {
				return err
			}
			s := st.Spec
			switch output {
			case "yaml":
				out, err := config.MarshalSetFile(s)
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(out)
				return err
			case "json":
				return present.PrintStructured(a.stdout, "json", s)
			}
			opt := kube.ExportOptions{Storage: storage}
			if rev, ok := st.Revision(st.UpdateRevision); ok {
				opt.RestartedAt = rev.Spec.RestartedAt
			}
			return a.writeManifests([]config.Set{s}, opt, false)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "kubernetes", "kubernetes (StatefulSet and Service), yaml (the set file) or json")
	storageFlag(cmd, &storage)
	cmd.ValidArgsFunction = a.completeSets
	return cmd
}

func storageFlag(cmd *cobra.Command, storage *string) {
	cmd.Flags().StringVar(storage, "storage", kube.DefaultStorage, "storage request of each volume claim (Docker volumes have no size)")
}

// writeManifests writes the sets as Kubernetes manifests to stdout, one
// StatefulSet and one Service each, and lists on stderr what they cannot
// express (with the set's file:line when withSource).
func (a *app) writeManifests(sets []config.Set, opt kube.ExportOptions, withSource bool) error {
	var out bytes.Buffer
	for i, s := range sets {
		docs, lost, err := kube.ExportKubernetes(s, opt)
		if err != nil {
			return err
		}
		if i > 0 {
			out.WriteString("---\n")
		}
		out.Write(docs)
		for _, u := range lost {
			msg := "not expressible in Kubernetes: " + u.String()
			if withSource && s.Source != "" {
				msg = s.Source + ": " + msg
			}
			a.warn(msg)
		}
	}
	_, err := a.stdout.Write(out.Bytes())
	return err
}

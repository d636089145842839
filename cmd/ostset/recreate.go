package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

func newRecreateCmd(a *app) *cobra.Command {
	var w waitFlags
	cmd := &cobra.Command{
		Use:   "recreate SET-ORDINAL [SET-ORDINAL...]",
		Short: "Remove replicas so that they are created again (kubectl delete pod); updates an OnDelete set",
		Long: `Remove the named replicas (web-1) gracefully; the controller then creates each
again, at the revision its ordinal should run, with its per-ordinal volumes.
Under the OnDelete update strategy this is how a replica moves to the update
revision. The replicas must belong to one set.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return invalidf("recreate: name at least one replica (SET-ORDINAL, e.g. web-1)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			set, ordinals, err := parseReplicaArgs(args)
			if err != nil {
				return err
			}
			c, err := a.controller()
			if err != nil {
				return err
			}
			ctx, cancel := w.bound(cmd.Context())
			defer cancel()
			a.mark(set)
			if err := c.Recreate(ctx, set, ordinals); err != nil {
				return err
			}
			return w.then(cmd.Context(), a, nil, set)
		},
	}
	w.register(cmd)
	cmd.ValidArgsFunction = a.completeSetsAndReplicas
	return cmd
}

// parseReplicaArgs splits replica names (web-1) into their one set and ordinals.
func parseReplicaArgs(args []string) (string, []int, error) {
	set := ""
	var ordinals []int
	for _, arg := range args {
		i := strings.LastIndex(arg, "-")
		ord, err := strconv.Atoi(arg[i+1:])
		if i <= 0 || err != nil || ord < 0 {
			return "", nil, invalidf("%q is not a replica name (SET-ORDINAL, e.g. web-1)", arg)
		}
		if set != "" && arg[:i] != set {
			return "", nil, invalidf("replicas of two sets (%s, %s): name replicas of one set", set, arg[:i])
		}
		set = arg[:i]
		ordinals = append(ordinals, ord)
	}
	return set, ordinals, nil
}

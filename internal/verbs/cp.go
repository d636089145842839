package verbs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// newCpCmd is kubectl cp and docker cp with a replica's name: a file or
// directory out of a replica's container, or into it.
func newCpCmd(env Env) *cobra.Command {
	return &cobra.Command{
		Use:   "cp SET-ORDINAL:SRC DEST | cp SRC SET-ORDINAL:DEST",
		Short: "Copy files out of a replica's container or into it (kubectl cp, docker cp)",
		Long: `Copy a file or directory out of a replica's container, or into it, as docker cp
does: into DEST when it is an existing directory, else as DEST. Only the replica's
own container is reached (the container of a stored set's ordinal); what is copied
into it is lost when the replica is replaced, unless it lies in a volume claim.`,
		Example: `  ostset cp web-0:/data/dump.sql .
  ostset cp ./seed.sql web-1:/data/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return invalidf("cp takes SRC and DEST, one of them SET-ORDINAL:PATH, got %d arguments", len(args))
			}
			if env.Copy == nil {
				return invalidf("cp needs Docker, which this runtime is not")
			}
			sets, err := env.Sets()
			if err != nil {
				return err
			}
			srcSet, srcRep, srcPath := replicaPath(args[0], sets)
			dstSet, dstRep, dstPath := replicaPath(args[1], sets)
			switch {
			case srcRep != "" && dstRep != "":
				return invalidf("cp copies between this machine and one replica, not between replicas (%s, %s)", srcRep, dstRep)
			case srcRep == "" && dstRep == "":
				return invalidf("cp: name a replica of a stored set as SET-ORDINAL:PATH in SRC or DEST (the sets: %s)", strings.Join(sets, ", "))
			}
			set, rep, toContainer := srcSet, srcRep, false
			if dstRep != "" {
				set, rep, toContainer = dstSet, dstRep, true
			}
			var buf bytes.Buffer
			if err := env.Run(cmd.Context(), slices.Concat([]string{"get", set, "-o", "json"}, inherited(cmd)), &buf); err != nil {
				return err
			}
			var objs []struct{ Name, ID, State string }
			if err := json.Unmarshal(buf.Bytes(), &objs); err != nil {
				return fmt.Errorf("get %s -o json: %w", set, err)
			}
			i := slices.IndexFunc(objs, func(o struct{ Name, ID, State string }) bool { return o.Name == rep })
			if i < 0 || objs[i].ID == "" {
				return fmt.Errorf("replica %s has no container now", rep)
			}
			return env.Copy(cmd.Context(), set, objs[i].ID, toContainer, srcPath, dstPath)
		},
	}
}

// replicaPath splits SET-ORDINAL:PATH of a stored set; rep "" for a local path.
func replicaPath(arg string, sets []string) (set, rep, path string) {
	name, p, ok := strings.Cut(arg, ":")
	if !ok || strings.ContainsAny(name, `/\`) {
		return "", "", arg
	}
	set, ord := replicaOf(name, sets)
	if ord < 0 {
		return "", "", arg
	}
	return set, name, p
}

package verbs

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ostset/ostset/engine/state"
	"github.com/ostset/ostset/internal/suggest"
)

// instead maps kubectl's and compose's words that ostset has no command for
// to the command that does what they mean here (with the same arguments), or,
// with no command, to what to use instead.
var instead = map[string]struct{ command, note string }{
	"create":       {"up", ""},
	"rm":           {"down", ""},
	"remove":       {"down", ""},
	"kill":         {"recreate", ""},
	"rollback":     {"rollout undo", ""},
	"history":      {"rollout history", ""},
	"autoscale":    {"scale", ""},
	"run":          {"", "ostset runs sets from a set file: ostset up -f FILE (for one container: docker run)"},
	"pause":        {"", "ostset rollout pause SET stops updating replicas; to stop the replicas: ostset stop SET"},
	"unpause":      {"", "ostset rollout resume SET"},
	"attach":       {"", "use ostset logs -f SET-ORDINAL, or ostset exec -it SET-ORDINAL -- sh"},
	"port-forward": {"", "publish a port in the set file (ports:, with {{.Ordinal}} for one port per replica)"},
	"expose":       {"", "each set has its headless service (the network alias SET): replicas are SET-ORDINAL.SET"},
	"patch":        {"", "use ostset edit SET, or change the set file and ostset up -f FILE"},
	"replace":      {"", "use ostset up -f FILE"},
	"set":          {"", "use ostset edit SET, or change the set file and ostset up -f FILE"},
	"build":        {"", "use ostset up --build -f compose.yaml"},
	"images":       {"", "use ostset describe SET (the images of its revisions), or docker images"},
	"namespace":    {"", "ostset has no namespaces: set names are unique per state directory (--state-dir); compose projects (-p) keep sets apart"},
}

// Check returns an error saying what to type instead when args do not start
// with a command of root (after root's own flags): the command with the same
// arguments for a word of kubectl or compose, else the nearest command.
func Check(root *cobra.Command, args []string) error {
	i := verbIndex(root, args)
	if i < 0 {
		return nil
	}
	verb := args[i]
	if strings.HasPrefix(verb, "__") || verb == "help" || verb == "completion" {
		return nil
	}
	if c, _, err := root.Find([]string{verb}); err == nil && c != root {
		return nil
	}
	rest := strings.Join(slices.Concat(args[:i], args[i+1:]), " ")
	if w, ok := instead[verb]; ok {
		if w.command == "" {
			return invalidf("ostset has no command %s: %s", verb, w.note)
		}
		return invalidf("unknown command %s; did you mean: %s", verb, commandLine(w.command, rest))
	}
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	if near := suggest.Closest(verb, names); near != "" {
		return invalidf("unknown command %s; did you mean: %s", verb, commandLine(near, rest))
	}
	return invalidf("unknown command %s (see ostset --help)", verb)
}

func commandLine(verb, rest string) string {
	return strings.TrimSpace("ostset " + verb + " " + rest)
}

// verbIndex is the index of the first argument that is not one of root's
// flags (or a flag's value); -1 if none.
func verbIndex(root *cobra.Command, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return -1
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			return i
		}
		if strings.Contains(a, "=") {
			continue
		}
		name := strings.TrimLeft(a, "-")
		f := root.PersistentFlags().Lookup(name)
		if f == nil && len(name) == 1 {
			f = root.PersistentFlags().ShorthandLookup(name)
		}
		if f != nil && f.NoOptDefVal == "" {
			i++ // its value
		}
	}
	return -1
}

// kubectl's flags that ostset has no equivalent of, and what to use instead.
var flagNotes = map[string]string{
	"namespace":      "ostset has no namespaces: set names are unique per state directory (--state-dir); compose projects (-p) keep sets apart",
	"n":              "ostset has no namespaces: set names are unique per state directory (--state-dir); compose projects (-p) keep sets apart",
	"all-namespaces": "ostset has no namespaces: ostset get lists every set",
	"A":              "ostset has no namespaces: ostset get lists every set",
	"selector":       "ostset selects by set name: name the set (SET) or the replica (SET-ORDINAL); ostset logs -l takes a label selector",
	"l":              "ostset selects by set name: name the set (SET) or the replica (SET-ORDINAL); ostset logs -l takes a label selector",
	"kubeconfig":     "ostset talks to Docker: DOCKER_HOST, or the docker CLI's context",
	"context":        "ostset talks to Docker: DOCKER_HOST, or the docker CLI's context",
}

// flagHint says what to use instead of an unknown flag: kubectl's flags that
// have no meaning here, else the nearest flag of cmd.
func flagHint(cmd *cobra.Command, err error) string {
	msg := err.Error()
	var name string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		name = strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: '"):
		name = strings.TrimPrefix(msg, "unknown shorthand flag: '")
		name, _, _ = strings.Cut(name, "'")
	default:
		return ""
	}
	if note, ok := flagNotes[name]; ok {
		return note
	}
	if len(name) == 1 {
		return "see ostset " + cmd.Name() + " --help"
	}
	var names []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	if near := suggest.Closest(name, names); near != "" {
		return "did you mean --" + near + "?"
	}
	return "see ostset " + cmd.Name() + " --help"
}

// kinds are kubectl's resource words, which ostset's get does not take: it
// takes a set's name.
var kinds = []string{"pods", "pod", "po", "statefulsets", "statefulset", "sts", "services", "service", "svc",
	"deployments", "deployment", "deploy", "all", "nodes", "node", "pvc", "persistentvolumeclaims", "containers"}

// explainKinds makes get of a kubectl resource kind that is no set's name
// say that get takes a set name, and list the sets.
func explainKinds(get *cobra.Command, env Env) {
	run := get.RunE
	get.RunE = func(cmd *cobra.Command, args []string) error {
		err := run(cmd, args)
		if err == nil || len(args) != 1 || !slices.Contains(kinds, strings.ToLower(args[0])) || !errors.Is(err, state.ErrUnknownSet) {
			return err
		}
		sets, lerr := env.Sets()
		list := "there are no sets yet (ostset up -f FILE)"
		if lerr == nil && len(sets) > 0 {
			list = "the sets are: " + strings.Join(sets, ", ")
		}
		return fmt.Errorf("%w: ostset get takes a set's name, not a kind: ostset get lists the sets (the StatefulSets), "+
			"ostset get SET a set's replicas (its pods), ostset ps every replica; %s", err, list)
	}
}

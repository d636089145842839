package config

import (
	"bytes"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MarshalSetFile writes s as a set file that reads back as s: every field
// that holds a value, and none that holds nothing ("", 0, false, empty
// lists and maps), except where zero is a value of its own (replicas: 0).
// A $ in a value is written $$, so that reading the file does not take it for
// a variable of ostset's environment.
func MarshalSetFile(s Set) ([]byte, error) {
	var n yaml.Node
	if err := n.Encode(s); err != nil {
		return nil, err
	}
	prune(&n)
	escapeDollars(&n)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// zeroMeans are the fields whose zero or false is a choice, not the default.
var zeroMeans = map[string]bool{
	"replicas": true, "revisionHistoryLimit": true, "terminationGracePeriodSeconds": true,
	"progressDeadlineSeconds": true, "init": true,
}

// userMaps hold the user's keys and values, which are kept as written ("" is a
// value of an environment variable).
var userMaps = map[string]bool{"env": true, "labels": true, "sysctls": true, "ulimits": true, "driverOpts": true}

// prune removes, in the set file's own mappings, the pairs that hold nothing.
// It reports whether n itself holds nothing afterwards.
func prune(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			empty := false
			switch {
			case userMaps[k.Value]:
				empty = len(v.Content) == 0
			case zeroMeans[k.Value]:
				empty = v.ShortTag() == "!!null"
			default:
				empty = prune(v)
			}
			if !empty {
				kept = append(kept, k, v)
			}
		}
		n.Content = kept
		return len(kept) == 0
	case yaml.SequenceNode:
		for _, item := range n.Content {
			prune(item)
		}
		return len(n.Content) == 0
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return true
		case "!!int":
			return n.Value == "0"
		case "!!bool":
			return n.Value == "false"
		case "!!str":
			return n.Value == "" || n.Value == "0s" // an unset duration
		}
	}
	return false
}

// escapeDollars doubles each $ of the string values under n outside template
// actions, which the set file's interpolation copies untouched.
func escapeDollars(n *yaml.Node) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			escapeDollars(c)
		}
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			escapeDollars(n.Content[i])
		}
	case yaml.ScalarNode:
		if n.ShortTag() == "!!str" && strings.Contains(n.Value, "$") {
			n.Value = escapeInterpolation(n.Value)
		}
	}
}

func escapeInterpolation(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.HasPrefix(s[i:], "{{") {
			if end := strings.Index(s[i+2:], "}}"); end >= 0 {
				b.WriteString(s[i : i+end+4])
				i += end + 3
				continue
			}
		}
		if s[i] == '$' {
			b.WriteByte('$')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

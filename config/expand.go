package config

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"text/template"
)

// ReplicaVars are the values a template may use in command, args and env
// values: {{.Set}}, {{.Ordinal}}, {{.Name}} (= container name and hostname)
// and {{.Service}}.
type ReplicaVars struct {
	Set     string
	Ordinal int
	Name    string
	Service string
}

// Expand returns a copy of t with {{.Set}}, {{.Ordinal}}, {{.Name}} and
// {{.Service}} expanded in command, args and env values. t is not modified.
func Expand(t Template, v ReplicaVars) (Template, error) {
	t = t.clone()
	var errs []error
	expand := func(path string, s *string) {
		out, err := expandString(*s, v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			return
		}
		*s = out
	}
	for i := range t.Command {
		expand(fmt.Sprintf("template.command[%d]", i), &t.Command[i])
	}
	for i := range t.Args {
		expand(fmt.Sprintf("template.args[%d]", i), &t.Args[i])
	}
	for _, k := range slices.Sorted(maps.Keys(t.Env)) {
		s := t.Env[k]
		expand("template.env."+k, &s)
		t.Env[k] = s
	}
	return t, errors.Join(errs...)
}

func expandString(s string, v ReplicaVars) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	tmpl, err := template.New("t").Option("missingkey=error").Parse(s)
	if err != nil {
		return "", templateError(err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, v); err != nil {
		return "", templateError(err)
	}
	return b.String(), nil
}

var (
	templateFieldRe  = regexp.MustCompile(`can't evaluate field (\w+)`)
	templatePrefixRe = regexp.MustCompile(`^template: t:\d+(?::\d+)?: (?:executing "t" at <[^>]*>: )?`)
)

// templateError drops text/template's "template: t:1:2: executing..." noise.
func templateError(err error) error {
	msg := err.Error()
	if m := templateFieldRe.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("unknown template field .%s (use .Set, .Ordinal, .Name or .Service)", m[1])
	}
	return fmt.Errorf("invalid template: %s", templatePrefixRe.ReplaceAllString(msg, ""))
}

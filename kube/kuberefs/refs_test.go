package kuberefs

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ostset/ostset/config"
)

// kubeExpand is Kubernetes' expansion of command, args and env values
// (third_party/forked/golang/expansion): $(VAR) is replaced when VAR is
// defined and kept otherwise, $$ is $, and any other $ is kept.
func kubeExpand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString("$(")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if v, ok := vars[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}

// What Kubernetes makes of an escaped string is the string, whatever $ and
// parentheses it holds and whatever variables the container defines.
func TestEscapeKubeRefsSurvivesKubernetesExpansion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOfN(rapid.SampledFrom([]rune("$()AB_ x")), 0, 24, -1).Draw(t, "s")
		vars := map[string]string{"A": "1", "AB": "2", "B_": "", "": "3"}
		if got := kubeExpand(Escape(s), vars); got != s {
			t.Fatalf("escaped %q as %q, which Kubernetes expands to %q", s, Escape(s), got)
		}
	})
}

func TestTranslateTemplate(t *testing.T) {
	cases := []struct {
		in    string
		style Style
		out   string
		ok    bool
	}{
		{"plain", KubeRefs, "plain", true},
		{"{{.Ordinal}}", KubeRefs, "$(OSTSET_ORDINAL)", true},
		{"{{ .Name }}.{{.Service}}:{{.Set}}", KubeRefs, "$(OSTSET_NAME).$(OSTSET_SERVICE):$(OSTSET_SET)", true},
		{"$(x) {{.Ordinal}} $$", KubeRefs, "$$(x) $(OSTSET_ORDINAL) $$$", true},
		{"id {{.Ordinal}} $HOME", ShellRefs, "id ${OSTSET_ORDINAL} $HOME", true},
		{"/data/{{.Ordinal}}", NoRefs, "/data/{{.Ordinal}}", false},
		{"/data/$(x)", NoRefs, "/data/$(x)", true},
		{"{{.Replicas}}", KubeRefs, "{{.Replicas}}", false},
		{"{{if eq .Ordinal 0}}a{{end}}", KubeRefs, "{{if eq .Ordinal 0}}a{{end}}", false},
		{"{{range .Peers}}{{.Host}}{{end}}", KubeRefs, "{{range .Peers}}{{.Host}}{{end}}", false},
		{"{{.Ordinal | printf \"%d\"}}", KubeRefs, "{{.Ordinal | printf \"%d\"}}", false},
		{"{{$x := .Ordinal}}", KubeRefs, "{{$x := .Ordinal}}", false},
		{"{{.Peers.Host}}", KubeRefs, "{{.Peers.Host}}", false},
		{"{{.Ordinal", KubeRefs, "{{.Ordinal", false},
	}
	for _, c := range cases {
		out, ok := Translate(c.in, c.style)
		if out != c.out || ok != c.ok {
			t.Errorf("Translate(%q, %d) = %q, %v; want %q, %v", c.in, c.style, out, ok, c.out, c.ok)
		}
	}
}

// A translated string means in a pod what the template means in a replica.
func TestTranslatedTemplatesExpandAsTheReplicaDoes(t *testing.T) {
	three := 3
	s := config.Set{Name: "db", ServiceName: "peers", Replicas: &three}
	for ordinal := range 3 {
		v := s.ReplicaVars("peers", ordinal)
		pod := map[string]string{EnvSet: v.Set, EnvOrdinal: "", EnvName: v.Name, EnvService: v.Service}
		pod[EnvOrdinal] = string(rune('0' + ordinal))
		for _, tmpl := range []string{"{{.Ordinal}}", "x-{{.Name}}.{{.Service}} $(y) $$ {{.Set}}$", "--id={{ .Ordinal }}"} {
			want, err := config.ExpandString(tmpl, v)
			if err != nil {
				t.Fatal(err)
			}
			out, ok := Translate(tmpl, KubeRefs)
			if got := kubeExpand(out, pod); !ok || got != want {
				t.Errorf("%q in replica %d: ostset gives %q, the pod %q (%q)", tmpl, ordinal, want, got, out)
			}
		}
	}
}

package kube

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
		if got := kubeExpand(escapeKubeRefs(s), vars); got != s {
			t.Fatalf("escaped %q as %q, which Kubernetes expands to %q", s, escapeKubeRefs(s), got)
		}
	})
}

func TestTranslateTemplate(t *testing.T) {
	cases := []struct {
		in    string
		style refStyle
		out   string
		ok    bool
	}{
		{"plain", kubeRefs, "plain", true},
		{"{{.Ordinal}}", kubeRefs, "$(OSTSET_ORDINAL)", true},
		{"{{ .Name }}.{{.Service}}:{{.Set}}", kubeRefs, "$(OSTSET_NAME).$(OSTSET_SERVICE):$(OSTSET_SET)", true},
		{"$(x) {{.Ordinal}} $$", kubeRefs, "$$(x) $(OSTSET_ORDINAL) $$$", true},
		{"id {{.Ordinal}} $HOME", shellRefs, "id ${OSTSET_ORDINAL} $HOME", true},
		{"/data/{{.Ordinal}}", noRefs, "/data/{{.Ordinal}}", false},
		{"/data/$(x)", noRefs, "/data/$(x)", true},
		{"{{.Replicas}}", kubeRefs, "{{.Replicas}}", false},
		{"{{if eq .Ordinal 0}}a{{end}}", kubeRefs, "{{if eq .Ordinal 0}}a{{end}}", false},
		{"{{range .Peers}}{{.Host}}{{end}}", kubeRefs, "{{range .Peers}}{{.Host}}{{end}}", false},
		{"{{.Ordinal | printf \"%d\"}}", kubeRefs, "{{.Ordinal | printf \"%d\"}}", false},
		{"{{$x := .Ordinal}}", kubeRefs, "{{$x := .Ordinal}}", false},
		{"{{.Peers.Host}}", kubeRefs, "{{.Peers.Host}}", false},
		{"{{.Ordinal", kubeRefs, "{{.Ordinal", false},
	}
	for _, c := range cases {
		out, ok := translateTemplate(c.in, c.style)
		if out != c.out || ok != c.ok {
			t.Errorf("translateTemplate(%q, %d) = %q, %v; want %q, %v", c.in, c.style, out, ok, c.out, c.ok)
		}
	}
}

// A translated string means in a pod what the template means in a replica.
func TestTranslatedTemplatesExpandAsTheReplicaDoes(t *testing.T) {
	s := config.Set{Name: "db", ServiceName: "peers", Replicas: ptr(3)}
	for ordinal := range 3 {
		v := s.ReplicaVars("peers", ordinal)
		pod := map[string]string{EnvSet: v.Set, EnvOrdinal: "", EnvName: v.Name, EnvService: v.Service}
		pod[EnvOrdinal] = string(rune('0' + ordinal))
		for _, tmpl := range []string{"{{.Ordinal}}", "x-{{.Name}}.{{.Service}} $(y) $$ {{.Set}}$", "--id={{ .Ordinal }}"} {
			want, err := config.ExpandString(tmpl, v)
			if err != nil {
				t.Fatal(err)
			}
			out, ok := translateTemplate(tmpl, kubeRefs)
			if got := kubeExpand(out, pod); !ok || got != want {
				t.Errorf("%q in replica %d: ostset gives %q, the pod %q (%q)", tmpl, ordinal, want, got, out)
			}
		}
	}
}

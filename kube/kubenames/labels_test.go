package kubenames

import "testing"

func TestCheckLabel(t *testing.T) {
	for _, c := range []struct {
		key, value string
		ok         bool
	}{
		{"app", "web", true},
		{"app.kubernetes.io/name", "web-0.x_y", true},
		{"traefik.http.routers.backend.rule", "", true},
		{"traefik.http.routers.backend.rule", "Path(`/`)", false},
		{"ostset.compose.container", "stdin_open=true", false},
		{"deps", "a,b", false},
		{"app", "-web", false},
		{"Bad_Prefix/name", "v", false},
		{"/name", "v", false},
		{"x", string(make([]byte, 64)), false},
	} {
		if err := CheckLabel(c.key, c.value); (err == nil) != c.ok {
			t.Errorf("CheckLabel(%q, %q) = %v, want ok %v", c.key, c.value, err, c.ok)
		}
	}
}

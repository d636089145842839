package userdirs

import "testing"

func TestPathsPerGOOS(t *testing.T) {
	none := map[string]string{}
	xdg := map[string]string{"XDG_STATE_HOME": "/x/state", "XDG_CONFIG_HOME": "/x/config", "LOCALAPPDATA": `D:\local`, "APPDATA": `D:\roaming`}
	for _, c := range []struct {
		goos, home      string
		vars            map[string]string
		state, settings string
	}{
		{"linux", "/home/u", none, "/home/u/.local/state/ostset", "/home/u/.config/ostset/config.yaml"},
		{"linux", "/home/u", xdg, "/x/state/ostset", "/x/config/ostset/config.yaml"},
		{"darwin", "/Users/u", none, "/Users/u/.local/state/ostset", "/Users/u/.config/ostset/config.yaml"},
		{"darwin", "/Users/u", xdg, "/x/state/ostset", "/x/config/ostset/config.yaml"},
		{"freebsd", "/home/u", none, "/home/u/.local/state/ostset", "/home/u/.config/ostset/config.yaml"},
		{"windows", `C:\Users\u`, none, `C:\Users\u\AppData\Local\ostset`, `C:\Users\u\AppData\Roaming\ostset\config.yaml`},
		{"windows", `C:\Users\u`, xdg, `D:\local\ostset`, `D:\roaming\ostset\config.yaml`},
	} {
		vars := c.vars
		e := Env{GOOS: c.goos, Home: c.home, Getenv: func(k string) string { return vars[k] }}
		if got := e.State(); got != c.state {
			t.Errorf("%s %v: State %q, want %q", c.goos, vars, got, c.state)
		}
		if got := e.ConfigFile(); got != c.settings {
			t.Errorf("%s %v: ConfigFile %q, want %q", c.goos, vars, got, c.settings)
		}
		if got, want := e.WithoutEnv().State(), (Env{GOOS: c.goos, Home: c.home, Getenv: func(string) string { return "" }}).State(); got != want {
			t.Errorf("%s: WithoutEnv().State %q, want %q", c.goos, got, want)
		}
	}
}

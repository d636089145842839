// Package userdirs says where ostset keeps its files for a user on each
// operating system: the state directory and the settings file. Linux and
// macOS follow the XDG base directories (~/.local/state/ostset,
// ~/.config/ostset); Windows uses %LOCALAPPDATA%\ostset for state and
// %APPDATA%\ostset for settings. The functions are pure: they take the GOOS,
// the environment and the home directory, so their rules are tested for every
// GOOS on any machine.
package userdirs

import (
	"os"
	"path"
	"runtime"
	"strings"
)

// Env is what the paths depend on.
type Env struct {
	GOOS   string
	Getenv func(string) string
	Home   string
}

// Process is this process's GOOS, environment and home directory.
func Process() Env {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return Env{GOOS: runtime.GOOS, Getenv: os.Getenv, Home: home}
}

// Join joins path elements with goos's separator.
func Join(goos string, elem ...string) string {
	if goos == "windows" {
		var parts []string
		for _, e := range elem {
			if e = strings.Trim(e, `\/`); e != "" || len(parts) == 0 {
				parts = append(parts, e)
			}
		}
		return strings.ReplaceAll(strings.Join(parts, `\`), "/", `\`)
	}
	return path.Join(elem...)
}

// dir is the environment variable's value, or fallback under home.
func (e Env) dir(env string, fallback ...string) string {
	if d := e.Getenv(env); d != "" {
		return d
	}
	return Join(e.GOOS, append([]string{e.Home}, fallback...)...)
}

// State is the default state directory.
func (e Env) State() string {
	if e.GOOS == "windows" {
		return Join(e.GOOS, e.dir("LOCALAPPDATA", "AppData", "Local"), "ostset")
	}
	return Join(e.GOOS, e.dir("XDG_STATE_HOME", ".local", "state"), "ostset")
}

// ConfigHome is the user's configuration directory: XDG_CONFIG_HOME or
// ~/.config (Linux, macOS), %APPDATA% (Windows).
func (e Env) ConfigHome() string {
	if e.GOOS == "windows" {
		return e.dir("APPDATA", "AppData", "Roaming")
	}
	return e.dir("XDG_CONFIG_HOME", ".config")
}

// ConfigFile is the default settings file.
func (e Env) ConfigFile() string { return Join(e.GOOS, e.ConfigHome(), "ostset", "config.yaml") }

// WithoutEnv is e as a service started at login sees it: the home
// directory, none of the shell's variables.
func (e Env) WithoutEnv() Env {
	e.Getenv = func(string) string { return "" }
	return e
}

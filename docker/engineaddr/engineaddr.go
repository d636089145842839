// Package engineaddr finds the Docker engine to talk to as the docker CLI
// does, so that ostset and docker reach the same engine:
//
//  1. a context named on the command line (--context);
//  2. DOCKER_HOST (with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH);
//  3. a context named by DOCKER_CONTEXT;
//  4. the currentContext of the docker config (config.json under
//     DOCKER_CONFIG, default ~/.docker);
//  5. the default socket of the platform.
//
// A context is read from the CLI's context store: contexts/meta/<sha256 of the
// name>/meta.json for the "docker" endpoint's Host and SkipTLSVerify, and
// contexts/tls/<sha256 of the name>/docker/{ca,cert,key}.pem for its TLS
// material. The context named "default" is the environment's engine (steps 2
// and 5). It knows nothing of the Docker SDK: the docker package builds its
// client from the Endpoint.
package engineaddr

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultContext is the name of the context that stands for the environment's
// engine: DOCKER_HOST, or the default socket.
const DefaultContext = "default"

// Where the engine's address came from.
const (
	FromFlag          = "--context"
	FromHost          = "DOCKER_HOST"
	FromContextEnv    = "DOCKER_CONTEXT"
	FromConfig        = "currentContext"
	FromDefaultSocket = "default socket"
)

// Endpoint is the engine to talk to and how it was chosen.
type Endpoint struct {
	// Host is the engine's address (unix://, tcp://, npipe://, ssh://).
	Host string
	// Context is the docker context's name; DefaultContext when none is used.
	Context string
	// From says what chose it (one of the From* constants).
	From string
	// Config is the docker config file that named the context (From ==
	// FromConfig).
	Config string
	// FromEnv is true when the SDK's own environment handling (DOCKER_HOST,
	// DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, DOCKER_API_VERSION) applies: the
	// default context.
	FromEnv bool
	// TLS is the context's TLS material; nil when the context uses none.
	TLS *TLSFiles
}

// TLSFiles is a context's TLS material: file paths, empty when absent.
type TLSFiles struct {
	CA, Cert, Key string
	// SkipVerify is the endpoint's SkipTLSVerify.
	SkipVerify bool
}

// String describes the endpoint for messages: the address, the context and
// what chose it.
func (e Endpoint) String() string {
	switch e.From {
	case FromHost:
		return e.Host + " (from DOCKER_HOST)"
	case FromDefaultSocket:
		return e.Host + " (the default socket; no DOCKER_HOST, no docker context)"
	case FromConfig:
		if e.Context == DefaultContext {
			return fmt.Sprintf("%s (docker context %q, current in %s)", e.Host, e.Context, e.Config)
		}
		return fmt.Sprintf("%s (docker context %q, current in %s; `docker context use` changes it)", e.Host, e.Context, e.Config)
	}
	return fmt.Sprintf("%s (docker context %q, from %s)", e.Host, e.Context, e.From)
}

// Env is what resolution reads from the process: its environment, home
// directory and operating system. Tests pass their own.
type Env struct {
	Getenv func(string) string
	Home   string
	GOOS   string
}

// DefaultHost is the engine's default address on goos, as the Docker SDK has it.
func DefaultHost(goos string) string {
	if goos == "windows" {
		return "npipe:////./pipe/docker_engine"
	}
	return "unix:///var/run/docker.sock"
}

// ConfigDir is the docker CLI's configuration directory: DOCKER_CONFIG, or
// .docker in the home directory.
func ConfigDir(env Env) string {
	if d := env.Getenv("DOCKER_CONFIG"); d != "" {
		return d
	}
	return filepath.Join(env.Home, ".docker")
}

// Resolve finds the engine. flagContext is the --context flag's value ("" when
// not given). A context that is named but not in the store is an error, as it
// is for docker.
func Resolve(flagContext string, env Env) (Endpoint, error) {
	name, from, config := flagContext, FromFlag, ""
	if name == "" {
		if h := env.Getenv("DOCKER_HOST"); h != "" {
			return Endpoint{Host: h, Context: DefaultContext, From: FromHost, FromEnv: true}, nil
		}
		name, from = env.Getenv("DOCKER_CONTEXT"), FromContextEnv
	}
	if name == "" {
		current, file, err := currentContext(ConfigDir(env))
		if err != nil {
			return Endpoint{}, err
		}
		name, from, config = current, FromConfig, file
	}
	if name == "" {
		return Endpoint{Host: DefaultHost(env.GOOS), Context: DefaultContext, From: FromDefaultSocket, FromEnv: true}, nil
	}
	if name == DefaultContext {
		host := env.Getenv("DOCKER_HOST")
		if host == "" {
			host = DefaultHost(env.GOOS)
		}
		return Endpoint{Host: host, Context: name, From: from, Config: config, FromEnv: true}, nil
	}
	ep, err := readContext(ConfigDir(env), name, env.GOOS)
	if err != nil {
		return Endpoint{}, fmt.Errorf("docker context %q (from %s): %w", name, fromWord(from, config), err)
	}
	ep.From, ep.Config = from, config
	return ep, nil
}

func fromWord(from, config string) string {
	if from == FromConfig {
		return "currentContext in " + config
	}
	return from
}

// currentContext reads currentContext from the docker config file; "" when
// there is no file or no such field.
func currentContext(dir string) (name, file string, err error) {
	file = filepath.Join(dir, "config.json")
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return "", file, nil
	}
	if err != nil {
		return "", file, fmt.Errorf("docker config: %w", err)
	}
	var cfg struct {
		CurrentContext string `json:"currentContext"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return "", file, fmt.Errorf("docker config %s: %w", file, err)
	}
	return cfg.CurrentContext, file, nil
}

// ContextID is the directory name of a context in the store: the hex SHA-256
// of its name.
func ContextID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

// readContext reads a named context's docker endpoint from the store under dir.
func readContext(dir, name, goos string) (Endpoint, error) {
	id := ContextID(name)
	file := filepath.Join(dir, "contexts", "meta", id, "meta.json")
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return Endpoint{}, fmt.Errorf("not found: no %s (`docker context ls` lists the contexts)", file)
	}
	if err != nil {
		return Endpoint{}, err
	}
	var meta struct {
		Name      string
		Endpoints map[string]struct {
			Host          string
			SkipTLSVerify bool
		}
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return Endpoint{}, fmt.Errorf("%s: %w", file, err)
	}
	if meta.Name != name {
		return Endpoint{}, fmt.Errorf("%s names context %q", file, meta.Name)
	}
	docker, ok := meta.Endpoints["docker"]
	if !ok {
		return Endpoint{}, fmt.Errorf("%s: no docker endpoint", file)
	}
	ep := Endpoint{Host: docker.Host, Context: name}
	if ep.Host == "" {
		ep.Host = DefaultHost(goos)
	}
	tlsDir := filepath.Join(dir, "contexts", "tls", id, "docker")
	files := TLSFiles{SkipVerify: docker.SkipTLSVerify}
	found := false
	for _, f := range []struct {
		name string
		path *string
	}{{"ca.pem", &files.CA}, {"cert.pem", &files.Cert}, {"key.pem", &files.Key}} {
		p := filepath.Join(tlsDir, f.name)
		if _, err := os.Stat(p); err == nil {
			*f.path, found = p, true
		}
	}
	if found || files.SkipVerify {
		ep.TLS = &files
	}
	return ep, nil
}

// ProcessEnv is this process's environment, home directory and GOOS.
func ProcessEnv() Env {
	home, _ := os.UserHomeDir()
	return Env{Getenv: os.Getenv, Home: home, GOOS: runtime.GOOS}
}

// Package registryauth finds the registry credentials a pull or a build
// sends, as the docker CLI finds them. It imports nothing of ostset.
package registryauth

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"github.com/cpuguy83/dockercfg"
	"github.com/distribution/reference"
	"github.com/moby/moby/api/pkg/authconfig"
	"github.com/moby/moby/api/types/registry"
)

// Creds is what a pull of one image authenticates with.
type Creds struct {
	Host   string // the config key: "127.0.0.1:5000", or the index server for Docker Hub
	Config string // the Docker config file consulted
	Auth   string // the encoded X-Registry-Auth value; empty: anonymous
}

// For finds the credentials for the registry of ref as `docker pull`
// does: the Docker CLI config file ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json), its credHelpers for that registry, then its
// credsStore, then its auths entry. Docker Hub references use the index server
// key (https://index.docker.io/v1/). No config file, or no entry for the
// registry, means an anonymous pull.
func For(ref string) (Creds, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return Creds{}, err
	}
	c := Creds{Host: dockercfg.ResolveRegistryHost(reference.Domain(named))}
	if c.Config, err = dockercfg.ConfigPath(); err != nil {
		return c, err
	}
	var cfg dockercfg.Config
	if err := dockercfg.FromFile(c.Config, &cfg); errors.Is(err, fs.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return c, fmt.Errorf("read the Docker config %s: %w", c.Config, err)
	}
	_, helper := cfg.CredentialHelpers[c.Host]
	_, entry := cfg.AuthConfigs[c.Host]
	if !helper && !entry && cfg.CredentialsStore == "" {
		// The library means to ask the platform's default helper here; the
		// Docker CLI asks only a helper the config names.
		return c, nil
	}
	ac, ok, err := authFor(&cfg, c.Host, c.Config)
	if err != nil || !ok {
		return c, err
	}
	if c.Auth, err = authconfig.Encode(ac); err != nil {
		return c, fmt.Errorf("credentials for %s: %w", c.Host, err)
	}
	return c, nil
}

// authFor asks the config for host's credentials; ok is false when it has none.
func authFor(cfg *dockercfg.Config, host, file string) (registry.AuthConfig, bool, error) {
	user, secret, err := cfg.GetRegistryCredentials(host)
	if err != nil {
		return registry.AuthConfig{}, false, fmt.Errorf("credentials for %s (from %s): %w", host, file, err)
	}
	if user == "" && secret == "" {
		return registry.AuthConfig{}, false, nil
	}
	if user == "" { // the secret is an identity token
		return registry.AuthConfig{IdentityToken: secret, ServerAddress: host}, true, nil
	}
	return registry.AuthConfig{Username: user, Password: secret, ServerAddress: host}, true, nil
}

// BuildConfigs are the credentials a build may pull its base images with,
// by registry, as 'docker build' sends them (X-Registry-Config): those of
// every registry the Docker config names in auths or credHelpers. The
// Dockerfile's FROM lines are not read: the engine picks what it needs. A
// registry whose helper fails is left out, as the pull would then go anonymous.
func BuildConfigs() (map[string]registry.AuthConfig, error) {
	file, err := dockercfg.ConfigPath()
	if err != nil {
		return nil, err
	}
	var cfg dockercfg.Config
	if err := dockercfg.FromFile(file, &cfg); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read the Docker config %s: %w", file, err)
	}
	hosts := slices.Collect(maps.Keys(cfg.AuthConfigs))
	hosts = slices.AppendSeq(hosts, maps.Keys(cfg.CredentialHelpers))
	out := map[string]registry.AuthConfig{}
	for _, host := range hosts {
		if ac, ok, err := authFor(&cfg, host, file); err == nil && ok {
			out[host] = ac
		}
	}
	return out, nil
}

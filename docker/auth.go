package docker

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/cpuguy83/dockercfg"
	"github.com/distribution/reference"
	"github.com/moby/moby/api/pkg/authconfig"
	"github.com/moby/moby/api/types/registry"
)

// registryCreds is what a pull of one image authenticates with.
type registryCreds struct {
	host   string // the config key: "127.0.0.1:5000", or the index server for Docker Hub
	config string // the Docker config file consulted
	auth   string // the encoded X-Registry-Auth value; empty: anonymous
}

// credentialsFor finds the credentials for the registry of ref as `docker pull`
// does: the Docker CLI config file ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json), its credHelpers for that registry, then its
// credsStore, then its auths entry. Docker Hub references use the index server
// key (https://index.docker.io/v1/). No config file, or no entry for the
// registry, means an anonymous pull.
func credentialsFor(ref string) (registryCreds, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return registryCreds{}, err
	}
	c := registryCreds{host: dockercfg.ResolveRegistryHost(reference.Domain(named))}
	if c.config, err = dockercfg.ConfigPath(); err != nil {
		return c, err
	}
	var cfg dockercfg.Config
	if err := dockercfg.FromFile(c.config, &cfg); errors.Is(err, fs.ErrNotExist) {
		return c, nil
	} else if err != nil {
		return c, fmt.Errorf("read the Docker config %s: %w", c.config, err)
	}
	_, helper := cfg.CredentialHelpers[c.host]
	_, entry := cfg.AuthConfigs[c.host]
	if !helper && !entry && cfg.CredentialsStore == "" {
		// The library means to ask the platform's default helper here; the
		// Docker CLI asks only a helper the config names.
		return c, nil
	}
	user, secret, err := cfg.GetRegistryCredentials(c.host)
	if err != nil {
		return c, fmt.Errorf("credentials for %s (from %s): %w", c.host, c.config, err)
	}
	if user == "" && secret == "" {
		return c, nil
	}
	ac := registry.AuthConfig{Username: user, Password: secret, ServerAddress: c.host}
	if user == "" { // the secret is an identity token
		ac = registry.AuthConfig{IdentityToken: secret, ServerAddress: c.host}
	}
	if c.auth, err = authconfig.Encode(ac); err != nil {
		return c, fmt.Errorf("credentials for %s: %w", c.host, err)
	}
	return c, nil
}

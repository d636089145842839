package verbs

import (
	"encoding/json"
	"io"
	"strings"
)

// The docker CLI runs a plugin docker-NAME in ~/.docker/cli-plugins as
// "docker-NAME docker-cli-plugin-metadata" to list it, and as
// "docker-NAME NAME ARGS..." for docker NAME ARGS..., with
// DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND set to the docker binary.
const (
	pluginName      = "ostset"
	metadataCommand = "docker-cli-plugin-metadata"
	pluginEnv       = "DOCKER_CLI_PLUGIN_ORIGINAL_CLI_COMMAND"
)

// PluginArgs gives back args without the plugin's name that the docker CLI
// puts first when it runs ostset as docker ostset; other args unchanged. The
// Docker connection is not touched here: ostset follows the same DOCKER_HOST
// and docker CLI context as the docker CLI that runs it.
func PluginArgs(args []string, getenv func(string) string) []string {
	if getenv(pluginEnv) == "" {
		return args
	}
	switch {
	case len(args) > 0 && args[0] == pluginName:
		return args[1:]
	case len(args) > 1 && strings.HasPrefix(args[0], "__complete") && args[1] == pluginName:
		// The docker CLI's shell completion asks "__complete ostset ARGS...".
		return append([]string{args[0]}, args[2:]...)
	}
	return args
}

// PluginMetadata answers the docker CLI's question of what the plugin is
// (args: docker-cli-plugin-metadata), and says whether args were that.
func PluginMetadata(args []string, version string, stdout io.Writer) (bool, error) {
	if len(args) != 1 || args[0] != metadataCommand {
		return false, nil
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return true, enc.Encode(struct {
		SchemaVersion    string
		Vendor           string
		Version          string
		ShortDescription string
		URL              string
	}{"0.1.0", "ostset", version, "Kubernetes StatefulSet semantics on plain Docker", "https://github.com/ostset/ostset"})
}

package docker

import "github.com/ostset/ostset/docker/containerspec"

// The create call's options, built by containerspec (pure).
var (
	createOptions = containerspec.CreateOptions
	attach        = containerspec.Attach
	portMaps      = containerspec.PortMaps
	restartPolicy = containerspec.RestartPolicy
	seconds       = containerspec.Seconds
	withLabel     = containerspec.WithLabel
)

// Package live shows sets as they change: the tables of ostset get (a row per
// set, a row per desired ordinal), the watch of get -w, the terminal view
// (ostset view), and the progress a command shows while it waits for a rollout
// (--progress tty and json).
//
// It reads status through the engine's and the daemon's APIs only
// (engine.Controller.Status, engine.Store, daemon.WatchChanges) and is given
// everything else by its caller as functions: running an ostset command line,
// a shell in a replica, a stats sample, a replica's log stream. It must never
// import docker/ or the Docker SDK (github.com/moby/moby,
// github.com/docker/docker); the depguard rule "live" in .golangci.yml makes
// make lint fail on such an import.
package live

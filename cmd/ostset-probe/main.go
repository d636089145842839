// Command ostset-probe is the probe a replica's healthcheck runs for a
// Kubernetes tcpSocket or httpGet readinessProbe: a small static Linux
// program that ostset copies into each replica at config.ProbePath before
// it starts, so the probe needs nothing from the image (no shell, nc, curl
// or wget) and nothing from the engine's file system.
//
//	ostset-probe probe tcp HOST:PORT [--timeout 10s]
//	ostset-probe probe http URL [--timeout 10s]
//
// It takes the arguments of the healthcheck ostset writes
// (["CMD", "/.ostset/ostset", "probe", "tcp", "127.0.0.1:80"]) and exits 0
// when the check passes, 1 with the reason on stderr when it fails, 2 on
// wrong arguments.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ostset/ostset/health"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	timeout := 10 * time.Second
	var rest []string
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--timeout" && i+1 < len(args):
			d, err := time.ParseDuration(args[i+1])
			if err != nil {
				fmt.Fprintf(os.Stderr, "probe: --timeout %q: %v\n", args[i+1], err)
				return 2
			}
			timeout = d
			i++
		case len(a) > len("--timeout=") && a[:len("--timeout=")] == "--timeout=":
			d, err := time.ParseDuration(a[len("--timeout="):])
			if err != nil {
				fmt.Fprintf(os.Stderr, "probe: %s: %v\n", a, err)
				return 2
			}
			timeout = d
		default:
			rest = append(rest, a)
		}
	}
	if len(rest) != 3 || rest[0] != "probe" {
		fmt.Fprintln(os.Stderr, "usage: probe tcp HOST:PORT | probe http URL [--timeout DURATION]")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var err error
	switch rest[1] {
	case "tcp":
		err = health.ProbeTCP(ctx, rest[2])
	case "http":
		err = health.ProbeHTTP(ctx, rest[2])
	default:
		fmt.Fprintf(os.Stderr, "probe: %q: tcp or http\n", rest[1])
		return 2
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

package config

import (
	"net"
	"net/url"
	"strconv"
)

// ProbePath is where a replica whose healthcheck runs ostset's own probe
// finds the ostset binary: the engine bind-mounts the running binary there,
// read-only. A Kubernetes tcpSocket or httpGet readinessProbe becomes such a
// healthcheck, so that it works in any image (one without a shell, nc, curl
// or wget, such as a distroless or FROM scratch image). The path on the host
// is not part of the template, so moving the binary rolls nothing.
const ProbePath = "/.ostset/ostset"

// Probe kinds, the first argument of "ostset probe".
const (
	ProbeTCP  = "tcp"
	ProbeHTTP = "http"
)

// ProbeTest is the healthcheck test that runs ostset's probe of the given
// kind on target (HOST:PORT for tcp, a URL for http).
func ProbeTest(kind, target string) []string {
	return []string{"CMD", ProbePath, "probe", kind, target}
}

// UsesProbe reports whether a healthcheck test runs ostset's own probe, and
// so needs the ostset binary mounted at ProbePath.
func UsesProbe(test []string) bool {
	return len(test) >= 2 && test[0] == "CMD" && test[1] == ProbePath
}

// ProbeTarget is what a healthcheck written by ProbeTest probes: the kind,
// host, port, and for http the scheme and path.
type ProbeTarget struct {
	Kind, Host, Scheme, Path string
	Port                     int
}

// ParseProbeTest reads a healthcheck written by ProbeTest back; ok is false
// for any other test.
func ParseProbeTest(test []string) (ProbeTarget, bool) {
	if len(test) != 5 || test[0] != "CMD" || test[1] != ProbePath || test[2] != "probe" {
		return ProbeTarget{}, false
	}
	switch test[3] {
	case ProbeTCP:
		host, port, err := net.SplitHostPort(test[4])
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return ProbeTarget{}, false
		}
		return ProbeTarget{Kind: ProbeTCP, Host: host, Port: n}, true
	case ProbeHTTP:
		u, err := url.Parse(test[4])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Port() == "" {
			return ProbeTarget{}, false
		}
		n, err := strconv.Atoi(u.Port())
		if err != nil {
			return ProbeTarget{}, false
		}
		path := u.RequestURI()
		return ProbeTarget{Kind: ProbeHTTP, Host: u.Hostname(), Scheme: u.Scheme, Path: path, Port: n}, true
	}
	return ProbeTarget{}, false
}

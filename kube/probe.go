package kube

import (
	"net"
	"net/url"
	"strconv"

	"github.com/ostset/ostset/config"
)

// A Kubernetes tcpSocket or httpGet readinessProbe becomes a healthcheck
// that runs ostset's own probe (config.ProbePath): the import writes it with
// probeTest, the export reads it back with parseProbeTest.

// probeTest is the healthcheck test that runs ostset's probe of the given
// kind on target (HOST:PORT for tcp, a URL for http).
func probeTest(kind, target string) []string {
	return []string{"CMD", config.ProbePath, "probe", kind, target}
}

// probeTarget is what a healthcheck written by probeTest probes: the kind,
// host, port, and for http the scheme and path.
type probeTarget struct {
	Kind, Host, Scheme, Path string
	Port                     int
}

// parseProbeTest reads a healthcheck written by probeTest back; ok is false
// for any other test.
func parseProbeTest(test []string) (probeTarget, bool) {
	if len(test) != 5 || test[0] != "CMD" || test[1] != config.ProbePath || test[2] != "probe" {
		return probeTarget{}, false
	}
	switch test[3] {
	case config.ProbeTCP:
		host, port, err := net.SplitHostPort(test[4])
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return probeTarget{}, false
		}
		return probeTarget{Kind: config.ProbeTCP, Host: host, Port: n}, true
	case config.ProbeHTTP:
		u, err := url.Parse(test[4])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Port() == "" {
			return probeTarget{}, false
		}
		n, err := strconv.Atoi(u.Port())
		if err != nil {
			return probeTarget{}, false
		}
		path := u.RequestURI()
		return probeTarget{Kind: config.ProbeHTTP, Host: u.Hostname(), Scheme: u.Scheme, Path: path, Port: n}, true
	}
	return probeTarget{}, false
}

// Package kubeprobe holds the healthcheck test that stands for a Kubernetes
// tcpSocket or httpGet probe: ostset's own probe program (config.ProbePath),
// written by the import (Test) and read back by the export (Parse). It
// imports config only.
package kubeprobe

import (
	"net"
	"net/url"
	"strconv"

	"github.com/ostset/ostset/config"
)

// Test is the healthcheck test that runs ostset's probe of the given
// kind on target (HOST:PORT for tcp, a URL for http).
func Test(kind, target string) []string {
	return []string{"CMD", config.ProbePath, "probe", kind, target}
}

// Target is what a healthcheck written by Test probes: the kind,
// host, port, and for http the scheme and path.
type Target struct {
	Kind, Host, Scheme, Path string
	Port                     int
}

// Parse reads a healthcheck written by Test back; ok is false
// for any other test.
func Parse(test []string) (Target, bool) {
	if len(test) != 5 || test[0] != "CMD" || test[1] != config.ProbePath || test[2] != "probe" {
		return Target{}, false
	}
	switch test[3] {
	case config.ProbeTCP:
		host, port, err := net.SplitHostPort(test[4])
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil {
			return Target{}, false
		}
		return Target{Kind: config.ProbeTCP, Host: host, Port: n}, true
	case config.ProbeHTTP:
		u, err := url.Parse(test[4])
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Port() == "" {
			return Target{}, false
		}
		n, err := strconv.Atoi(u.Port())
		if err != nil {
			return Target{}, false
		}
		path := u.RequestURI()
		return Target{Kind: config.ProbeHTTP, Host: u.Hostname(), Scheme: u.Scheme, Path: path, Port: n}, true
	}
	return Target{}, false
}

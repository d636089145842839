package config

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

// UsesProbe reports whether a healthcheck test runs ostset's own probe, and
// so needs ostset's probe program at ProbePath.
func UsesProbe(test []string) bool {
	return len(test) >= 2 && test[0] == "CMD" && test[1] == ProbePath
}

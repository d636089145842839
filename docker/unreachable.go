package docker

import "strings"

// unreachable says whether a pull failed because the registry could not be
// reached (no DNS answer, no route, a refused or timed-out connection): a
// runtime failure that a retry, or the network coming back, may cure, not a
// problem with the set's image reference.
func unreachable(msg string) bool {
	for _, s := range []string{
		"no such host", "server misbehaving", "connection refused", "network is unreachable",
		"no route to host", "i/o timeout", "TLS handshake timeout", "Client.Timeout exceeded",
		"request canceled while waiting for connection", "connection reset by peer",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

package health

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
)

// The probes of a Kubernetes tcpSocket or httpGet readinessProbe, as ostset
// runs them inside a replica: its static probe program (cmd/ostset-probe) is
// copied into the container and run by the Docker healthcheck, so that the
// probe needs nothing from the image (no shell, nc, curl or wget).

// ProbeTCP succeeds when a TCP connection to address (HOST:PORT) opens.
func ProbeTCP(ctx context.Context, address string) error {
	if _, _, err := net.SplitHostPort(address); err != nil {
		return fmt.Errorf("tcp probe: %q is not HOST:PORT", address)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return fmt.Errorf("tcp probe: %w", err)
	}
	return conn.Close()
}

// ProbeHTTP succeeds when a GET of rawURL answers with a status from 200 to
// 399, as Kubernetes' httpGet probe does: a redirect is not followed and
// counts as a success, and an HTTPS certificate is not verified.
func ProbeHTTP(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("http probe: %q is not an http:// or https:// URL", rawURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("http probe: %w", err)
	}
	req.Header.Set("User-Agent", "ostset-probe")
	client := &http.Client{
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // as Kubernetes probes do
			DisableKeepAlives: true,
			Proxy:             nil, // a probe reaches the replica itself, never through a proxy
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("http probe: %w", err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 400 {
		return fmt.Errorf("http probe: GET %s: %s", u, resp.Status)
	}
	return nil
}

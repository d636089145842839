package health

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestProbeTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ProbeTCP(ctx, addr); err != nil {
		t.Errorf("listening port: %v", err)
	}
	_ = ln.Close()
	if err := ProbeTCP(ctx, addr); err == nil {
		t.Error("closed port: the probe succeeded")
	}
	if err := ProbeTCP(ctx, "127.0.0.1"); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("no port: %v", err)
	}
}

func TestProbeHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.WriteHeader(http.StatusOK)
		case "/moved":
			http.Redirect(w, r, "http://198.51.100.1/elsewhere", http.StatusFound)
		case "/teapot":
			w.WriteHeader(http.StatusTeapot)
		default:
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer tls.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, c := range []struct {
		url string
		ok  bool
	}{
		{srv.URL + "/ok", true},
		{srv.URL + "/moved", true}, // not followed: a redirect is a success, as in Kubernetes
		{srv.URL + "/teapot", false},
		{srv.URL + "/down", false},
		{tls.URL + "/", true}, // a self-signed certificate is not verified
		{"ftp://127.0.0.1/", false},
		{"127.0.0.1:80", false},
	} {
		if err := ProbeHTTP(ctx, c.url); (err == nil) != c.ok {
			t.Errorf("%s: %v, want success %v", c.url, err, c.ok)
		}
	}
}

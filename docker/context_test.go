package docker

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ostset/ostset/docker/engineaddr"
)

// pki is a CA with a server certificate for 127.0.0.1 and a client
// certificate, PEM-encoded.
type pki struct {
	caPEM, serverCert, serverKey, clientCert, clientKey []byte
	pool                                                *x509.CertPool
}

func newPKI(t *testing.T) pki {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	leaf := func(serial int64, usage x509.ExtKeyUsage, ip net.IP) (certPEM, keyPEM []byte) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "leaf"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
		}
		if ip != nil {
			tmpl.IPAddresses = []net.IP{ip}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	}
	p := pki{caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	p.serverCert, p.serverKey = leaf(2, x509.ExtKeyUsageServerAuth, net.ParseIP("127.0.0.1"))
	p.clientCert, p.clientKey = leaf(3, x509.ExtKeyUsageClientAuth, nil)
	return p
}

// fakeTLSEngine answers /_ping and /version over mutual TLS, as a dockerd with
// --tlsverify does; it counts the requests it served.
func fakeTLSEngine(t *testing.T, p pki) (addr string, served *int) {
	t.Helper()
	n := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Api-Version", "1.41")
		if strings.HasSuffix(r.URL.Path, "/version") {
			_, _ = w.Write([]byte(`{"Platform":{"Name":"Fake Engine"},"Version":"99.0","ApiVersion":"1.41","Os":"linux","Arch":"amd64"}`))
			return
		}
		_, _ = w.Write([]byte("OK"))
	}))
	cert, err := tls.X509KeyPair(p.serverCert, p.serverKey)
	if err != nil {
		t.Fatal(err)
	}
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: p.pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "https://"), &n
}

// writeContext puts a context in a fake docker config directory, with the
// named TLS files, and makes it the current context.
func writeContext(t *testing.T, dir, name, host string, files map[string][]byte) {
	t.Helper()
	id := engineaddr.ContextID(name)
	meta := filepath.Join(dir, "contexts", "meta", id)
	tlsDir := filepath.Join(dir, "contexts", "tls", id, "docker")
	for _, d := range []string{meta, tlsDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	js := `{"Name":"` + name + `","Metadata":{},"Endpoints":{"docker":{"Host":"` + host + `","SkipTLSVerify":false}}}`
	if err := os.WriteFile(filepath.Join(meta, "meta.json"), []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(tlsDir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"currentContext":"`+name+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The current docker context's host and TLS material (CA, client certificate
// and key) are what ostset connects with: a mutual-TLS engine answers.
func TestCurrentContextWithTLSReachesEngine(t *testing.T) {
	p := newPKI(t)
	addr, served := fakeTLSEngine(t, p)
	dir := t.TempDir()
	writeContext(t, dir, "remote", "tcp://"+addr, map[string][]byte{
		"ca.pem": p.caPEM, "cert.pem": p.clientCert, "key.pem": p.clientKey,
	})
	t.Setenv("DOCKER_CONFIG", dir)
	t.Setenv("DOCKER_HOST", "")
	t.Setenv("DOCKER_CONTEXT", "")
	t.Setenv("DOCKER_CERT_PATH", "")
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	if err := r.Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
	if *served == 0 {
		t.Fatal("the context's engine served nothing")
	}
	if ep := r.Endpoint(); ep.Context != "remote" || ep.From != engineaddr.FromConfig {
		t.Fatalf("endpoint %+v", ep)
	}
	about := About(context.Background(), "")
	for _, want := range []string{`docker context "remote"`, "tcp://" + addr, "Fake Engine 99.0 (API 1.41"} {
		if !strings.Contains(about, want) {
			t.Errorf("About = %q, lacks %q", about, want)
		}
	}
}

// Without the client certificate the same engine refuses the connection, and
// the error names the engine and the context.
func TestContextWithoutClientCertIsRefusedAndSaysWhich(t *testing.T) {
	p := newPKI(t)
	addr, _ := fakeTLSEngine(t, p)
	dir := t.TempDir()
	writeContext(t, dir, "remote", "tcp://"+addr, map[string][]byte{"ca.pem": p.caPEM})
	t.Setenv("DOCKER_CONFIG", dir)
	t.Setenv("DOCKER_HOST", "")
	t.Setenv("DOCKER_CONTEXT", "")
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	err = r.Ping(context.Background())
	if err == nil {
		t.Fatal("a mutual-TLS engine answered a client without a certificate")
	}
	for _, want := range []string{"tcp://" + addr, `docker context "remote"`, "unreachable"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

// An ssh:// engine is refused up front with what to do instead, not dialled
// as if it were a TCP address.
func TestSSHHostSaysWhatToDo(t *testing.T) {
	t.Setenv("DOCKER_HOST", "ssh://me@build-host")
	_, err := New()
	if err == nil || !strings.Contains(err.Error(), "ssh://me@build-host (from DOCKER_HOST)") || !strings.Contains(err.Error(), "ssh -nNT -L") {
		t.Fatalf("New with an ssh:// DOCKER_HOST: %v", err)
	}
}

package temporalconn

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/config"
)

// writePair writes a self-signed certificate and its key valid from
// notBefore to notAfter, and returns their paths.
func writePair(t *testing.T, dir, name string, notBefore, notAfter time.Time) (string, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: notBefore, NotAfter: notAfter, IsCA: true, BasicConstraintsValid: true,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	cert, keyPath := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+".key")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	return cert, keyPath
}

func TestOptionsPlaintextAndAddressList(t *testing.T) {
	o, dial, err := Options(config.Config{TemporalAddress: "127.0.0.1:7233", Namespace: "ns"})
	if err != nil || o.HostPort != "127.0.0.1:7233" || o.Namespace != "ns" || o.ConnectionOptions.TLS != nil || len(dial) != 1 {
		t.Fatalf("plain single address: %+v %v %v", o, dial, err)
	}
	o, dial, err = Options(config.Config{TemporalAddress: "127.0.0.2:7233, 127.0.0.3:7233,127.0.0.4:7233"})
	if err != nil || !strings.HasPrefix(o.HostPort, scheme+":///") || len(dial) != 2 {
		t.Fatalf("address list: %+v %v %v", o, dial, err)
	}
	for _, bad := range []string{"", "nohost", "127.0.0.1:7233,temporal"} {
		if _, _, err := Options(config.Config{TemporalAddress: bad}); err == nil || !strings.Contains(err.Error(), "TEMPORAL_ADDRESS") {
			t.Errorf("address %q: %v", bad, err)
		}
	}
}

func TestTLSFilesAreCheckedUpFront(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	cert, key := writePair(t, dir, "client", now.Add(-time.Hour), now.Add(time.Hour))
	_, otherKey := writePair(t, dir, "other", now.Add(-time.Hour), now.Add(time.Hour))
	oldCert, oldKey := writePair(t, dir, "old", now.Add(-2*time.Hour), now.Add(-time.Hour))
	for _, tc := range []struct {
		name string
		tls  config.TemporalTLS
		want string
	}{
		{"cert without key", config.TemporalTLS{CertFile: cert}, "TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not"},
		{"key without cert", config.TemporalTLS{KeyFile: key}, "TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not"},
		{"missing cert", config.TemporalTLS{CertFile: filepath.Join(dir, "nope.pem"), KeyFile: key}, "TEMPORAL_TLS_CERT: open"},
		{"unreadable key", config.TemporalTLS{CertFile: cert, KeyFile: dir}, "TEMPORAL_TLS_KEY: read"},
		{"mismatched", config.TemporalTLS{CertFile: cert, KeyFile: otherKey}, "private key does not match public key"},
		{"expired", config.TemporalTLS{CertFile: oldCert, KeyFile: oldKey}, "expired on"},
		{"CA not PEM", config.TemporalTLS{CAFile: key}, "holds no PEM certificate"},
		{"missing CA", config.TemporalTLS{CAFile: filepath.Join(dir, "ca.pem")}, "TEMPORAL_TLS_CA: open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Options(config.Config{TemporalAddress: "127.0.0.1:7233", TemporalTLS: tc.tls})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}

	o, _, err := Options(config.Config{TemporalAddress: "10.0.0.5:7233", TemporalTLS: config.TemporalTLS{CertFile: cert, KeyFile: key, CAFile: cert}})
	if err != nil {
		t.Fatal(err)
	}
	tc := o.ConnectionOptions.TLS
	if tc == nil || tc.ServerName != "10.0.0.5" || tc.RootCAs == nil || tc.GetClientCertificate == nil {
		t.Fatalf("TLS config: %+v", tc)
	}
	got, err := tc.GetClientCertificate(nil)
	if err != nil || got.Leaf.Subject.CommonName != "client" {
		t.Fatalf("client certificate: %v %v", got, err)
	}
	// A renewed certificate in the same files is used from the next handshake.
	time.Sleep(10 * time.Millisecond)
	writePair(t, dir, "client", now.Add(-time.Minute), now.Add(2*time.Hour))
	future := now.Add(time.Second)
	_ = os.Chtimes(cert, future, future)
	_ = os.Chtimes(key, future, future)
	got2, err := tc.GetClientCertificate(nil)
	if err != nil || got2.Leaf.NotAfter.Equal(got.Leaf.NotAfter) {
		t.Fatalf("renewed certificate not picked up: %v", err)
	}

	o, _, err = Options(config.Config{TemporalAddress: "temporal.example:7233", TemporalTLS: config.TemporalTLS{APIKey: "k"}})
	if err != nil || o.Credentials == nil || o.ConnectionOptions.TLS == nil || o.ConnectionOptions.TLS.ServerName != "temporal.example" {
		t.Fatalf("API key: %+v %v", o, err)
	}
}

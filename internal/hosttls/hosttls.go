// Package hosttls secures the connections between gateways and the host
// proxies of workers on other machines without distributing any file:
// every Berth process already holds BERTH_SECRET, and the certificate
// authority is derived from it. A worker issues itself a certificate for
// its announced address at start; a gateway trusts that authority alone,
// so a host that does not hold the secret cannot pass for one.
package hosttls

import (
	"crypto/ed25519"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// caInfo separates this key from anything else derived from the secret.
const caInfo = "berth-host-ca/v1"

// Fixed, so every process derives the same certificate; the trust is in
// the key, which only holders of the secret can compute.
var (
	caNotBefore = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	caNotAfter  = time.Date(2125, 1, 1, 0, 0, 0, 0, time.UTC)
)

// leafLife bounds a host certificate; a worker issues a fresh one at each
// start, and GetCertificate renews it before it runs out.
const leafLife = 30 * 24 * time.Hour

// CA is the authority derived from a secret.
type CA struct {
	Cert *x509.Certificate
	key  ed25519.PrivateKey
}

// DeriveCA derives the hosts' authority from secret. Ed25519 keys and
// signatures are deterministic, so every process gets the same certificate.
func DeriveCA(secret string) (*CA, error) {
	if secret == "" {
		return nil, errors.New("no secret to derive the hosts' authority from (BERTH_SECRET)")
	}
	seed, err := hkdf.Key(sha256.New, []byte(secret), nil, caInfo, ed25519.SeedSize)
	if err != nil {
		return nil, err
	}
	key := ed25519.NewKeyFromSeed(seed)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Berth hosts CA"},
		NotBefore:             caNotBefore,
		NotAfter:              caNotAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("hosts CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &CA{Cert: cert, key: key}, nil
}

// Issue makes a certificate for the host part of addr ("host:port" or a
// bare host): an IP address or a DNS name.
func (ca *CA) Issue(addr string, now time.Time) (*tls.Certificate, error) {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	if host == "" {
		return nil, fmt.Errorf("no host in %q", addr)
	}
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-time.Hour), // clocks of two machines differ a little
		NotAfter:     now.Add(leafLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, pub, ca.key)
	if err != nil {
		return nil, fmt.Errorf("host certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// ServerConfig serves addr with a certificate of the secret's authority,
// renewed a day before it runs out.
func ServerConfig(secret, addr string) (*tls.Config, error) {
	ca, err := DeriveCA(secret)
	if err != nil {
		return nil, err
	}
	r := &renewer{ca: ca, addr: addr}
	if _, err := r.get(time.Now()); err != nil {
		return nil, err
	}
	return &tls.Config{
		MinVersion:     tls.VersionTLS13,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return r.get(time.Now()) },
		NextProtos:     []string{"http/1.1"},
	}, nil
}

// ClientConfig trusts only the secret's authority.
func ClientConfig(secret string) (*tls.Config, error) {
	ca, err := DeriveCA(secret)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: pool}, nil
}

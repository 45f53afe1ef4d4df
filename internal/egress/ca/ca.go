// Package ca is the per-sandbox certificate authority of the egress proxy.
// The worker generates one per sandbox; its key stays on the host, its
// certificate (CertPEM) is installed in the sandbox's trust store, and the
// proxy mints leaf certificates from it for the names sandboxes connect to
// when it intercepts HTTPS.
package ca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"
)

// Validity of certificates: the CA outlives sandboxes that sleep and wake
// (it is kept with the sandbox); leaves are short and re-minted.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 7 * 24 * time.Hour
	maxLeaves    = 1024 // cached leaves per CA; the cache is emptied past it
)

// CA is a sandbox's certificate authority.
type CA struct {
	cert    *x509.Certificate
	certDER []byte
	key     *ecdsa.PrivateKey
	leafKey *ecdsa.PrivateKey // one key for all leaves: minting is one signature

	mu     sync.Mutex
	leaves map[string]*tls.Certificate
}

// New generates a CA (ECDSA P-256) named for the sandbox.
func New(sandbox string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{Organization: []string{"Berth"}, CommonName: "Berth egress CA for sandbox " + sandbox},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return fromParts(der, key)
}

// Load restores a CA from the PEM blocks written by CertPEM and KeyPEM.
func Load(certPEM, keyPEM []byte) (*CA, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil || cb.Type != "CERTIFICATE" || kb.Type != "EC PRIVATE KEY" {
		return nil, errors.New("ca: expected a CERTIFICATE and an EC PRIVATE KEY PEM block")
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("ca: key: %w", err)
	}
	return fromParts(cb.Bytes, key)
}

func fromParts(der []byte, key *ecdsa.PrivateKey) (*CA, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA || !key.PublicKey.Equal(cert.PublicKey) {
		return nil, errors.New("ca: certificate is not a CA or does not match the key")
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, certDER: der, key: key, leafKey: leafKey, leaves: map[string]*tls.Certificate{}}, nil
}

// CertPEM is the CA certificate to install in the sandbox's trust store.
func (c *CA) CertPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.certDER})
}

// KeyPEM is the CA key, for the host's own storage only: it must never
// enter a container.
func (c *CA) KeyPEM() []byte {
	b, _ := x509.MarshalECPrivateKey(c.key)
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: b})
}

// Certificate is the parsed CA certificate.
func (c *CA) Certificate() *x509.Certificate { return c.cert }

// Leaf returns a certificate for host (a DNS name or an IP literal), minted
// on first use and cached until shortly before it expires.
func (c *CA) Leaf(host string) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if l, ok := c.leaves[host]; ok && time.Until(l.Leaf.NotAfter) > time.Hour {
		return l, nil
	}
	now := time.Now()
	notAfter := now.Add(leafValidity)
	if notAfter.After(c.cert.NotAfter) {
		notAfter = c.cert.NotAfter
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.cert, &c.leafKey.PublicKey, c.key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	l := &tls.Certificate{Certificate: [][]byte{der, c.certDER}, PrivateKey: c.leafKey, Leaf: leaf}
	if len(c.leaves) >= maxLeaves {
		clear(c.leaves)
	}
	c.leaves[host] = l
	return l, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n
}

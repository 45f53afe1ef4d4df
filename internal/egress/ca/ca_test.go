package ca

import (
	"crypto/x509"
	"testing"
)

func TestLeafVerifiesAgainstCAAndIsCached(t *testing.T) {
	c, err := New("sb-1")
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.CertPEM()) {
		t.Fatal("CertPEM does not parse")
	}
	for _, host := range []string{"api.example.com", "192.0.2.7"} {
		l, err := c.Leaf(host)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: pool}); err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		again, _ := c.Leaf(host)
		if again != l {
			t.Error("leaf not cached")
		}
	}
	other, _ := New("sb-2")
	l, _ := other.Leaf("api.example.com")
	if _, err := l.Leaf.Verify(x509.VerifyOptions{DNSName: "api.example.com", Roots: pool}); err == nil {
		t.Error("another sandbox's CA must not be trusted")
	}
}

func TestLoadRoundTrip(t *testing.T) {
	c, _ := New("sb-1")
	d, err := Load(c.CertPEM(), c.KeyPEM())
	if err != nil {
		t.Fatal(err)
	}
	if !d.Certificate().Equal(c.Certificate()) {
		t.Fatal("certificate differs after Load")
	}
	other, _ := New("sb-2")
	if _, err := Load(c.CertPEM(), other.KeyPEM()); err == nil {
		t.Fatal("mismatched key accepted")
	}
}

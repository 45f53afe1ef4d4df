// Package temporalconn turns Berth's Temporal settings into SDK client
// options: one frontend or several (client-side balanced), plaintext or TLS
// with a client certificate, an API key. Every file is checked before the
// first dial, so a wrong path or a key that does not match its certificate
// is a clear error at start, not a TLS handshake failure in a retry loop.
package temporalconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/berthdev/berth/internal/config"
)

// scheme names the resolver of a list of frontends.
const scheme = "berth-temporal"

// gRPC keepalive of Berth's Temporal clients (see Options).
const (
	keepAliveTime    = 15 * time.Second
	keepAliveTimeout = 5 * time.Second
)

// Options returns the client options for cfg's Temporal (address,
// namespace, TLS, credentials) and the dial options they need; the caller
// adds its logger and its own dial options.
func Options(cfg config.Config) (client.Options, []grpc.DialOption, error) {
	o := client.Options{HostPort: cfg.TemporalAddress, Namespace: cfg.Namespace}
	// A connection whose node died without closing it (a lost host, a cut
	// network) is found dead after KeepAliveTime of silence plus
	// KeepAliveTimeout, 20 s here against the SDK's 45 s; its calls then
	// fail over to the other frontends. A Temporal frontend closes the
	// connection of a client that pings more often than every 10 s
	// (frontend.keepAliveMinTime): 15 s keeps clear of it.
	o.ConnectionOptions.KeepAliveTime = keepAliveTime
	o.ConnectionOptions.KeepAliveTimeout = keepAliveTimeout
	dial := []grpc.DialOption{grpc.WithChainUnaryInterceptor(retryUnavailable)}
	addrs, err := splitAddresses(cfg.TemporalAddress)
	if err != nil {
		return o, nil, err
	}
	if len(addrs) > 1 {
		// Several frontends of one cluster: gRPC balances calls over them
		// (the SDK asks for round robin) and stops using one that is down,
		// so losing a Temporal node fails only the calls in flight on it.
		r := manual.NewBuilderWithScheme(scheme)
		state := resolver.State{}
		for _, a := range addrs {
			state.Addresses = append(state.Addresses, resolver.Address{Addr: a})
		}
		r.InitialState(state)
		o.HostPort = scheme + ":///temporal"
		dial = append(dial, grpc.WithResolvers(r))
	}
	t := cfg.TemporalTLS
	if !t.On() {
		return o, dial, nil
	}
	tc, err := TLSConfig(t, addrs[0])
	if err != nil {
		return o, nil, err
	}
	o.ConnectionOptions.TLS = tc
	if t.APIKey != "" {
		o.Credentials = client.NewAPIKeyStaticCredentials(t.APIKey)
	}
	return o, dial, nil
}

// splitAddresses parses TEMPORAL_ADDRESS: host:port, or a comma-separated
// list of them (the frontends of one cluster).
func splitAddresses(s string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(a); err != nil {
			return nil, fmt.Errorf("TEMPORAL_ADDRESS %q: %q is not host:port", s, a)
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("TEMPORAL_ADDRESS is empty")
	}
	return out, nil
}

// TLSConfig builds the TLS settings of t for a frontend at addr (its host
// is the name checked when TEMPORAL_TLS_SERVER_NAME is unset).
func TLSConfig(t config.TemporalTLS, addr string) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName}
	if tc.ServerName == "" {
		host, _, _ := net.SplitHostPort(addr)
		tc.ServerName = host
	}
	if t.CAFile != "" {
		pem, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, fmt.Errorf("TEMPORAL_TLS_CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TEMPORAL_TLS_CA %s holds no PEM certificate", t.CAFile)
		}
		tc.RootCAs = pool
	}
	switch {
	case t.CertFile == "" && t.KeyFile == "":
	case t.CertFile == "":
		return nil, errors.New("TEMPORAL_TLS_KEY is set but TEMPORAL_TLS_CERT is not: a client certificate needs both")
	case t.KeyFile == "":
		return nil, errors.New("TEMPORAL_TLS_CERT is set but TEMPORAL_TLS_KEY is not: a client certificate needs both")
	default:
		kp := &keyPair{cert: t.CertFile, key: t.KeyFile}
		if _, err := kp.load(); err != nil {
			return nil, err
		}
		tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return kp.get() }
	}
	return tc, nil
}

// keyPair is a client certificate read from files, read again when
// either file changes (certificates are renewed in place).
type keyPair struct {
	cert, key string

	mu       sync.Mutex
	current  *tls.Certificate
	certTime time.Time
	keyTime  time.Time
}

func (k *keyPair) get() (*tls.Certificate, error) {
	ct, kt := modTime(k.cert), modTime(k.key)
	k.mu.Lock()
	cur, same := k.current, ct.Equal(k.certTime) && kt.Equal(k.keyTime)
	k.mu.Unlock()
	if cur != nil && same {
		return cur, nil
	}
	c, err := k.load()
	if err != nil && cur != nil {
		return cur, nil // a renewal half written: keep the last good pair
	}
	return c, err
}

// load reads and checks the pair and makes it current.
func (k *keyPair) load() (*tls.Certificate, error) {
	ct, kt := modTime(k.cert), modTime(k.key)
	certPEM, err := os.ReadFile(k.cert)
	if err != nil {
		return nil, fmt.Errorf("TEMPORAL_TLS_CERT: %w", err)
	}
	keyPEM, err := os.ReadFile(k.key)
	if err != nil {
		return nil, fmt.Errorf("TEMPORAL_TLS_KEY: %w", err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("TEMPORAL_TLS_CERT %s and TEMPORAL_TLS_KEY %s: %w", k.cert, k.key, err)
	}
	if now := time.Now(); now.After(pair.Leaf.NotAfter) {
		return nil, fmt.Errorf("TEMPORAL_TLS_CERT %s expired on %s", k.cert, pair.Leaf.NotAfter.UTC().Format(time.RFC3339))
	} else if now.Before(pair.Leaf.NotBefore) {
		return nil, fmt.Errorf("TEMPORAL_TLS_CERT %s is not valid before %s", k.cert, pair.Leaf.NotBefore.UTC().Format(time.RFC3339))
	}
	k.mu.Lock()
	k.current, k.certTime, k.keyTime = &pair, ct, kt
	k.mu.Unlock()
	return &pair, nil
}

func modTime(path string) time.Time {
	fi, err := os.Stat(path)
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime()
}

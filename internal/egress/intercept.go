package egress

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/egress/secrets"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
)

// serveTLS terminates the client's TLS with a leaf of the sandbox's CA for
// the server name it asked for, then serves its HTTP requests.
func (p *Proxy) serveTLS(c net.Conn, info *conn, e *entry) {
	metrics.EgressConnections.WithLabelValues("intercept").Inc()
	tc := tls.Server(countBytes(c, "intercept"), &tls.Config{
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return e.CA.Leaf(info.sni) },
		NextProtos:     []string{"http/1.1"},
		MinVersion:     tls.VersionTLS12,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		// Typically a client that does not trust the sandbox's CA.
		if p.Log != nil {
			p.Log.Info("egress: client TLS handshake failed", sandboxlog.Of(info.sbID, info.boot), zap.String("host", info.sni), zap.Error(err))
		}
		tc.Close()
		return
	}
	p.serveHTTP(tc, info)
}

// serveHTTP serves the HTTP/1.1 requests of one client connection (plain,
// or decrypted by serveTLS), checking and forwarding each to the
// connection's original destination, over upstream connections kept alive
// for this sandbox, destination and server name.
func (p *Proxy) serveHTTP(c net.Conn, info *conn) {
	metrics.EgressConnections.WithLabelValues("http").Inc()
	if !info.tls {
		c = countBytes(c, "http") // an intercepted one is counted under its TLS
	}
	tr := p.transports.get(info, p)
	scheme := "http"
	if info.tls {
		scheme = "https"
	}
	rp := &httputil.ReverseProxy{
		Transport: tr,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host, pr.Out.Host = scheme, pr.In.Host, pr.In.Host
		},
		ErrorLog:       log.New(io.Discard, "", 0),
		ModifyResponse: info.redact.response,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if errors.Is(err, errCompressed) {
				plain(w, http.StatusBadGateway, "berth egress: refused: the upstream answered in a content coding on a connection that carried secrets, so the answer could not be checked for them\n")
				return
			}
			// The error may quote the URL, which may now hold a secret:
			// neither the log nor the client gets its text.
			if p.Log != nil && !errors.Is(err, context.Canceled) {
				p.Log.Info("egress: upstream request failed", sandboxlog.Of(info.sbID, info.boot), zap.Stringer("destination", info.dst), zap.String("error", errorClass(err)))
			}
			plain(w, http.StatusBadGateway, fmt.Sprintf("berth egress: upstream %s failed (%s)\n", info.dst, errorClass(err)))
		},
	}
	ln := &oneConnListener{c: c, done: make(chan struct{})}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.forward(w, r, info, rp) }),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          log.New(io.Discard, "", 0),
		TLSNextProto:      map[string]func(*http.Server, *tls.Conn, http.Handler){},
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateClosed || s == http.StateHijacked {
				ln.finish()
			}
		},
	}
	srv.Serve(ln)
}

// forward checks one request against the sandbox's current policy,
// substitutes its secrets and sends it upstream, or answers 403.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request, info *conn, rp *httputil.ReverseProxy) {
	refuse := func(reason, secret string) {
		p.reporter().refuse(Refusal{Sandbox: info.sbID, Boot: info.boot, Source: info.src, Destination: info.dst, Host: r.Host, Secret: secret, Kind: "http", Reason: reason})
		plain(w, http.StatusForbidden, "berth egress: refused: "+reason+"\n")
	}
	e := p.Registry.lookup(info.src) // the policy as it is now
	if e == nil {
		refuse("unknown source address", "")
		return
	}
	info.mu.Lock()
	info.lastHost = r.Host
	info.mu.Unlock()
	if r.Method == http.MethodTrace {
		// TRACE answers with the request as the upstream received it:
		// substituted secrets included.
		refuse("TRACE is not forwarded", "")
		return
	}
	if info.tls {
		if reason := p.checkName(e, info.sni, info.dst); reason != "" {
			refuse(reason, "")
			return
		}
		h, _ := policy.NormalizeHost(r.Host)
		s, _ := policy.NormalizeHost(info.sni)
		if h != s && e.m.Mode() != policy.Open {
			refuse(fmt.Sprintf("Host %q does not match the TLS server name %q", r.Host, info.sni), "")
			return
		}
	} else if reason := p.checkName(e, r.Host, info.dst); reason != "" {
		refuse(reason, "")
		return
	}
	if secrets.HasPlaceholder(r) {
		host, _ := policy.NormalizeHost(r.Host)
		switch {
		case !info.tls:
			refuse(fmt.Sprintf("getSecret placeholders are only substituted over HTTPS; the request to %s was not sent", host), "")
			return
		case p.Secrets == nil:
			refuse("no secret store is configured; the request was not sent", "")
			return
		}
		if reason := p.secretRoute(e, info, r); reason != "" {
			refuse(reason, secrets.FirstPlaceholder(r)) // the operator learns which secret was held back
			return
		}
		host, _ = policy.NormalizeHost(info.sni) // the name the client verified
		sub, err := secrets.Substitute(r, host, p.Secrets)
		if err != nil {
			var re *secrets.RefusalError
			if errors.As(err, &re) {
				refuse(re.Error(), re.Secret)
			} else {
				refuse("a secret could not be substituted; the request was not sent", "")
			}
			return
		}
		metrics.SecretSubstitutions.Add(float64(len(sub.Names)))
		info.redact.add(sub.Sent)
	}
	if info.redact.patterns() != nil {
		// Answers on this connection are searched for the values sent:
		// ask for them uncompressed (one in a content coding is refused),
		// and for WebSockets without per-message compression.
		r.Header.Set("Accept-Encoding", "identity")
		r.Header.Del("Sec-WebSocket-Extensions")
	}
	rp.ServeHTTP(w, r)
}

// secretRoute says why a request carrying a placeholder may not go where
// its connection leads, or "". The value may only travel to the name the
// client verified the certificate for (SNI) and that the secret is bound to
// (Substitute checks the binding against that name), so:
//   - the Host header and an absolute-form target must name it too, else a
//     front end routing by Host (a CDN, virtual hosting) delivers the
//     value to whoever owns the other name;
//   - the destination must be an address this sandbox's resolver returned
//     for it, else a client pinning the name to another address (curl
//     --resolve, /etc/hosts) sends the value to any server whose
//     certificate verifies for the name.
//
// Every policy mode, open included.
func (p *Proxy) secretRoute(e *entry, info *conn, r *http.Request) string {
	sni, ok := policy.NormalizeHost(info.sni)
	if !ok || policy.IsIP(sni) {
		return "getSecret placeholders are only substituted for a TLS server name; the request was not sent"
	}
	for _, h := range []string{r.Host, r.URL.Host} {
		if h == "" {
			continue
		}
		if n, _ := policy.NormalizeHost(h); n != sni {
			c, _ := api.Clip(h, 256)
			return fmt.Sprintf("a request carrying getSecret placeholders names host %q, not the TLS server name %q; it was not sent", c, sni)
		}
	}
	if p.Resolutions == nil || !p.Resolutions.Has(e.ID, sni, info.dst.Addr()) {
		return fmt.Sprintf("destination %s is not an address the sandbox's resolver returned for %s; a request carrying getSecret placeholders goes only there, it was not sent", info.dst.Addr(), sni)
	}
	return ""
}

func plain(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Connection", "close")
	w.WriteHeader(code)
	io.WriteString(w, body)
}

// errorClass describes an upstream error without quoting URLs.
func errorClass(err error) string {
	var ne net.Error
	var oe *net.OpError
	var ce *tls.CertificateVerificationError
	switch {
	case errors.As(err, &ce):
		return "upstream certificate not trusted"
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.As(err, &oe):
		return oe.Op + " failed"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed by upstream"
	}
	return "error"
}

// oneConnListener hands one connection to an http.Server, then blocks
// Accept until that connection is done, so Serve returns with it.
type oneConnListener struct {
	c        net.Conn
	accepted bool
	done     chan struct{}
	once     sync.Once
}

func (l *oneConnListener) Accept() (net.Conn, error) {
	if !l.accepted {
		l.accepted = true
		return l.c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConnListener) finish()        { l.once.Do(func() { close(l.done) }) }
func (l *oneConnListener) Close() error   { return nil }
func (l *oneConnListener) Addr() net.Addr { return l.c.LocalAddr() }

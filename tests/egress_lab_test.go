package tests

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/internal/egress/ca"
)

// internet is the egress tests' own internet, inside the isolation lab's
// network namespace at its public address: HTTP on 80 and 8080, HTTPS on
// 443 with a certificate of the internet's own CA, and a DNS server
// answering every name under example.test with that address. Upstreams
// record what reaches them.
type internet struct {
	lab    *netLab
	ip     string
	caFile string // the internet's CA, for BERTH_EGRESS_EXTRA_CA
	caPEM  []byte
	root   *ca.CA // signs the internet's server certificates
	mu     sync.Mutex
	seen   []seenRequest
	big    []byte // served at /big
	// handle, when set, may answer a request itself (set before the
	// first request).
	handle func(http.ResponseWriter, *http.Request) bool
}

type seenRequest struct {
	Host, Path, Query, Auth, Proto string
}

func newInternet(t *testing.T) *internet {
	lab := newNetLab(t)
	in := &internet{lab: lab, ip: lab.public}
	root, err := ca.New("egress test internet")
	require.NoError(t, err)
	in.caPEM, in.root = root.CertPEM(), root
	in.caFile = filepath.Join(t.TempDir(), "internet-ca.pem")
	require.NoError(t, os.WriteFile(in.caFile, in.caPEM, 0o644))

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto := "http"
		if r.TLS != nil {
			proto = "https"
		}
		in.mu.Lock()
		in.seen = append(in.seen, seenRequest{r.Host, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"), proto})
		in.mu.Unlock()
		if in.handle != nil && in.handle(w, r) {
			return
		}
		if r.URL.Path == "/big" && in.big != nil {
			w.Header().Set("Content-Length", fmt.Sprint(len(in.big)))
			w.Write(in.big)
			return
		}
		fmt.Fprintf(w, "hello %s %s%s\n", proto, r.Host, r.URL.Path)
	})
	for _, port := range []int{80, 8080} {
		ln := listenIn(t, lab.ns, "tcp4", fmt.Sprintf("%s:%d", in.ip, port))
		srv := &http.Server{Handler: handler, ErrorLog: nil}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
	}
	ln := listenIn(t, lab.ns, "tcp4", in.ip+":443")
	tsrv := &http.Server{Handler: handler, TLSConfig: in.tlsConfig()}
	go tsrv.ServeTLS(ln, "", "")
	t.Cleanup(func() { tsrv.Close() })

	zone := dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(req)
		for _, q := range req.Question {
			if q.Qtype == dns.TypeA && strings.HasSuffix(strings.ToLower(q.Name), "example.test.") {
				rr, _ := dns.NewRR(fmt.Sprintf("%s 5 IN A %s", q.Name, in.ip))
				m.Answer = append(m.Answer, rr)
			}
		}
		w.WriteMsg(m)
	})
	pc := listenPacketIn(t, lab.ns, in.ip+":53")
	dl := listenIn(t, lab.ns, "tcp4", in.ip+":53")
	for _, srv := range []*dns.Server{{PacketConn: pc, Handler: zone}, {Listener: dl, Handler: zone}} {
		go srv.ActivateAndServe()
		t.Cleanup(func() { srv.Shutdown() })
	}
	return in
}

// tlsConfig serves certificates of the internet's CA for any name.
func (in *internet) tlsConfig() *tls.Config {
	return &tls.Config{
		GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) { return in.root.Leaf(h.ServerName) },
	}
}

// requests returns what reached the upstreams so far.
func (in *internet) requests() []seenRequest {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]seenRequest(nil), in.seen...)
}

// inNetns runs fn on a thread inside the named network namespace; sockets
// it makes stay there. The thread is never returned to the scheduler.
func inNetns(ns string, fn func() error) error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread()
		f, err := os.Open("/run/netns/" + ns)
		if err != nil {
			done <- err
			return
		}
		defer f.Close()
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		done <- fn()
	}()
	return <-done
}

func listenIn(t *testing.T, ns, network, addr string) net.Listener {
	var ln net.Listener
	require.NoError(t, inNetns(ns, func() (err error) { ln, err = net.Listen(network, addr); return }))
	t.Cleanup(func() { ln.Close() })
	return ln
}

func listenPacketIn(t *testing.T, ns, addr string) net.PacketConn {
	var pc net.PacketConn
	require.NoError(t, inNetns(ns, func() (err error) { pc, err = net.ListenPacket("udp4", addr); return }))
	t.Cleanup(func() { pc.Close() })
	return pc
}

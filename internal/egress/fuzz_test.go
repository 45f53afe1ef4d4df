package egress

import (
	"bytes"
	"crypto/tls"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/berthdev/berth/internal/egress/policy"
)

// bytesConn is a connection whose peer sent data and then closed.
type bytesConn struct {
	net.Conn
	r *bytes.Reader
}

func (c bytesConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c bytesConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c bytesConn) SetReadDeadline(time.Time) error  { return nil }
func (c bytesConn) SetDeadline(time.Time) error      { return nil }
func (c bytesConn) SetWriteDeadline(time.Time) error { return nil }
func (c bytesConn) Close() error                     { return nil }

// FuzzPeekClientHello: whatever a sandbox sends first, the peek returns
// (with or without a hello) without a panic, and the bytes it hands back
// for replay are exactly the bytes it read: nothing dropped, nothing made
// up, so the upstream sees the client's own handshake.
func FuzzPeekClientHello(f *testing.F) {
	f.Add(clientHello(f, "api.example.com"))
	f.Add(clientHello(f, ""))
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	f.Add([]byte{0x16, 0x03, 0x01, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		type peeked struct {
			hello *tls.ClientHelloInfo
			read  []byte
			err   error
		}
		done := make(chan peeked, 1)
		go func() {
			h, r, err := peekClientHello(bytesConn{r: bytes.NewReader(data)})
			done <- peeked{h, r, err}
		}()
		var p peeked
		select {
		case p = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("the peek of %q did not return within 5 s", data)
		}
		hello, read, err := p.hello, p.read, p.err
		if !bytes.HasPrefix(data, read) {
			t.Fatalf("replay bytes %q are not what was read from %q", read, data)
		}
		if hello == nil && err == nil {
			t.Fatal("no hello and no error")
		}
	})
}

// clientHello records what a real TLS client sends first.
func clientHello(f *testing.F, sni string) []byte {
	a, b := net.Pipe()
	go func() {
		tls.Client(a, &tls.Config{ServerName: sni, InsecureSkipVerify: sni == ""}).Handshake()
		a.Close()
	}()
	b.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 64<<10)
	n, _ := b.Read(buf)
	b.Close()
	return buf[:n]
}

// dnsWriter records the answer of ServeDNS to a sandbox at src.
type dnsWriter struct {
	dns.ResponseWriter
	src net.Addr
	got *dns.Msg
}

func (w *dnsWriter) RemoteAddr() net.Addr        { return w.src }
func (w *dnsWriter) LocalAddr() net.Addr         { return &net.UDPAddr{IP: net.IPv4(127, 0, 0, 53), Port: 53} }
func (w *dnsWriter) WriteMsg(m *dns.Msg) error   { w.got = m; return nil }
func (w *dnsWriter) Write(b []byte) (int, error) { return len(b), nil }

// fuzzUpstream answers every query with the bytes of upstreamAnswer (its
// id set to the query's): the resolver's upstream is fuzzed as well.
type fuzzUpstream struct {
	mu     sync.Mutex
	answer []byte
	pc     net.PacketConn
}

func (u *fuzzUpstream) serve() {
	buf := make([]byte, 65535)
	for {
		n, from, err := u.pc.ReadFrom(buf)
		if err != nil {
			return
		}
		u.mu.Lock()
		a := append([]byte(nil), u.answer...)
		u.mu.Unlock()
		if len(a) >= 2 && n >= 2 {
			a[0], a[1] = buf[0], buf[1]
		}
		u.pc.WriteTo(a, from)
	}
}

// FuzzDNS: any message a sandbox sends, and any answer the upstream
// gives, ends in an answer or a refusal without a panic; a name outside
// the allowlist is refused and never forwarded; an answer of only private
// addresses never reaches the sandbox.
func FuzzDNS(f *testing.F) {
	q := func(name string, t uint16) []byte {
		m := new(dns.Msg)
		m.SetQuestion(name, t)
		m.SetEdns0(1232, false)
		b, _ := m.Pack()
		return b
	}
	ans := func(name, ip string) []byte {
		m := new(dns.Msg)
		m.SetQuestion(name, dns.TypeA)
		m.Response = true
		rr, _ := dns.NewRR(name + " 60 IN A " + ip)
		m.Answer = append(m.Answer, rr)
		b, _ := m.Pack()
		return b
	}
	f.Add(q("api.allowed.test.", dns.TypeA), ans("api.allowed.test.", "93.184.216.34"))
	f.Add(q("api.allowed.test.", dns.TypeA), ans("api.allowed.test.", "10.0.0.1"))
	f.Add(q("API.Allowed.Test.", dns.TypeAAAA), []byte{0, 0, 0x81, 0x80})
	f.Add(q("evil.test.", dns.TypeA), ans("evil.test.", "1.2.3.4"))
	f.Add(q("api.allowed.test.", dns.TypeANY), []byte{})
	f.Add([]byte{0, 1, 0, 0, 0, 2}, []byte{})

	up := &fuzzUpstream{}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		f.Fatal(err)
	}
	up.pc = pc
	go up.serve()
	f.Cleanup(func() { pc.Close() })
	reg := NewRegistry()
	src := netip.MustParseAddr("172.30.0.2")
	if err := reg.Set(src, Sandbox{ID: "sb", Policy: policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.allowed.test"}}}); err != nil {
		f.Fatal(err)
	}
	srv := &DNSServer{Registry: reg, Resolutions: NewResolutions(), Upstream: pc.LocalAddr().String(), Timeout: 200 * time.Millisecond, CacheSize: -1}

	f.Fuzz(func(t *testing.T, query, answer []byte) {
		req := new(dns.Msg)
		if req.Unpack(query) != nil {
			return
		}
		up.mu.Lock()
		up.answer = answer
		up.mu.Unlock()
		w := &dnsWriter{src: &net.UDPAddr{IP: src.AsSlice(), Port: 5353}}
		srv.ServeDNS(w, req)
		if w.got == nil {
			t.Fatal("no answer written")
		}
		if w.got.Rcode != dns.RcodeSuccess {
			return
		}
		if len(req.Question) != 1 {
			t.Fatalf("answered a query of %d questions", len(req.Question))
		}
		if name, _ := policy.NormalizeHost(trimDot(req.Question[0].Name)); name != "api.allowed.test" {
			t.Fatalf("answered %q, not in the allowlist", req.Question[0].Name)
		}
		for _, rr := range w.got.Answer {
			var ip net.IP
			switch a := rr.(type) {
			case *dns.A:
				ip = a.A
			case *dns.AAAA:
				ip = a.AAAA
			default:
				continue
			}
			if addr, ok := netip.AddrFromSlice(ip); ok && policy.Forbidden(addr.Unmap()) && !anyPublic(w.got.Answer) {
				t.Fatalf("answered only forbidden addresses: %v", w.got.Answer)
			}
		}
	})
}

func trimDot(s string) string {
	if len(s) > 0 && s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}

func anyPublic(rrs []dns.RR) bool {
	for _, rr := range rrs {
		var ip net.IP
		switch a := rr.(type) {
		case *dns.A:
			ip = a.A
		case *dns.AAAA:
			ip = a.AAAA
		}
		if addr, ok := netip.AddrFromSlice(ip); ok && !policy.Forbidden(addr.Unmap()) {
			return true
		}
	}
	return false
}

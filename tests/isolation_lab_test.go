package tests

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// netLab is the network the isolation tests bring: a network namespace
// behind a veth pair, routed from the host, holding a "public" address (a
// documentation range, standing in for the internet), a private LAN
// address and the link-local metadata address; plus listeners there and on
// the host's 0.0.0.0 that record every marker they receive.
type netLab struct {
	ns               string
	hostAddr         string // the host's end of the veth: one of "the host's other addresses"
	public, private  string
	linkLocal        string
	hostTCP, hostUDP int // listeners on the host's 0.0.0.0
	nsTCP, nsUDP     int // listeners on the namespace's 0.0.0.0
	mu               sync.Mutex
	got              []string // markers received, "tcp:MARK" or "udp:...MARK..."
	closers          []func()
}

func sh(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
}

// Labs take turns: each adds a route to the same link-local address and
// picks its addresses from a few dozen, so two at once could collide, in
// this process or in another test process on the machine (a lock file).
// A test holds the lab from holdLab (or newNetLab) until it ends; parallel
// tests wait in holdLab, which they call before they start their clocks.
var (
	labMu     sync.Mutex
	labHolder atomic.Pointer[testing.T]
)

func holdLab(t *testing.T) {
	if labHolder.Load() == t {
		return
	}
	labMu.Lock()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "berth-test-netlab.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		labMu.Unlock()
		t.Fatalf("lab lock: %v", err)
	}
	for {
		if err = unix.Flock(int(f.Fd()), unix.LOCK_EX); err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		labMu.Unlock()
		t.Fatalf("lab lock: %v", err)
	}
	labHolder.Store(t)
	// Registered before the lab's own cleanup, so it runs after it.
	t.Cleanup(func() {
		labHolder.Store(nil)
		f.Close() // releases the flock
		labMu.Unlock()
	})
}

// newNetLab builds the lab; everything it makes is removed at cleanup.
func newNetLab(t *testing.T) *netLab {
	holdLab(t)
	r := 1 + rand.IntN(60)
	id := fmt.Sprintf("%04x", rand.IntN(1<<16))
	l := &netLab{
		ns:        "berthiso-" + id,
		hostAddr:  fmt.Sprintf("198.51.100.%d", 4*r+1),
		public:    fmt.Sprintf("203.0.113.%d", 2*r),
		private:   fmt.Sprintf("10.254.%d.10", r),
		linkLocal: "169.254.169.254",
	}
	nsAddr := fmt.Sprintf("198.51.100.%d", 4*r+2)
	hostIf, nsIf := "bisoh"+id, "bison"+id
	t.Cleanup(func() {
		for i := len(l.closers) - 1; i >= 0; i-- {
			l.closers[i]()
		}
		for _, dst := range []string{l.public, l.private, l.linkLocal} {
			_ = exec.Command("ip", "route", "del", dst+"/32", "via", nsAddr).Run()
		}
		_ = exec.Command("ip", "link", "del", hostIf).Run()
		_ = exec.Command("ip", "netns", "del", l.ns).Run()
	})
	sh(t, "ip", "netns", "add", l.ns)
	sh(t, "ip", "link", "add", hostIf, "type", "veth", "peer", "name", nsIf)
	sh(t, "ip", "link", "set", nsIf, "netns", l.ns)
	sh(t, "ip", "addr", "add", l.hostAddr+"/30", "dev", hostIf)
	sh(t, "ip", "link", "set", hostIf, "up")
	in := func(args ...string) { sh(t, append([]string{"ip", "netns", "exec", l.ns}, args...)...) }
	in("ip", "link", "set", "lo", "up")
	in("ip", "addr", "add", nsAddr+"/30", "dev", nsIf)
	for _, a := range []string{l.public, l.private, l.linkLocal} {
		in("ip", "addr", "add", a+"/32", "dev", nsIf)
	}
	in("ip", "link", "set", nsIf, "up")
	in("ip", "route", "add", "default", "via", l.hostAddr)
	for _, dst := range []string{l.public, l.private, l.linkLocal} {
		sh(t, "ip", "route", "add", dst+"/32", "via", nsAddr, "dev", hostIf)
	}
	l.hostTCP, l.hostUDP = l.listen(t, "")
	l.nsTCP, l.nsUDP = l.listen(t, l.ns)
	return l
}

// listen opens a TCP and a UDP listener on 0.0.0.0 of the host, or of the
// named network namespace: a socket stays in the namespace it was made in,
// so a thread enters it only to make them (and is then thrown away).
func (l *netLab) listen(t *testing.T, ns string) (tcpPort, udpPort int) {
	type result struct {
		tl  net.Listener
		ul  net.PacketConn
		err error
	}
	done := make(chan result)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread dies with the goroutine
		var res result
		defer func() { done <- res }()
		if ns != "" {
			f, err := os.Open("/run/netns/" + ns)
			if err != nil {
				res.err = err
				return
			}
			defer f.Close()
			if res.err = unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); res.err != nil {
				return
			}
		}
		if res.tl, res.err = net.Listen("tcp4", "0.0.0.0:0"); res.err != nil {
			return
		}
		res.ul, res.err = net.ListenPacket("udp4", "0.0.0.0:0")
	}()
	res := <-done
	require.NoError(t, res.err, "listen in %q", ns)
	l.closers = append(l.closers, func() { res.tl.Close() }, func() { res.ul.Close() })
	go func() {
		for {
			c, err := res.tl.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 256)
				n, _ := c.Read(buf)
				l.record("tcp:" + strings.TrimSpace(string(buf[:n])))
			}()
		}
	}()
	go func() {
		buf := make([]byte, 2048)
		for {
			n, _, err := res.ul.ReadFrom(buf)
			if err != nil {
				return
			}
			l.record("udp:" + string(buf[:n]))
		}
	}()
	return res.tl.Addr().(*net.TCPAddr).Port, res.ul.LocalAddr().(*net.UDPAddr).Port
}

func (l *netLab) record(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, s)
}

// received reports whether any listener got the marker.
func (l *netLab) received(marker string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range l.got {
		if strings.Contains(g, marker) {
			return true
		}
	}
	return false
}

package egress

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOriginalDstThroughRealRedirect sends IPv4 and IPv6 connections through
// a real nftables REDIRECT in a network namespace the test makes, and reads
// their destinations back with SO_ORIGINAL_DST.
func TestOriginalDstThroughRealRedirect(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for a network namespace")
	}
	name := fmt.Sprintf("berth-egress-test-%d", os.Getpid())
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Skipf("%s: %v %s", strings.Join(args, " "), err, out)
		}
	}
	run("ip", "netns", "add", name)
	t.Cleanup(func() { exec.Command("ip", "netns", "del", name).Run() })
	in := func(args ...string) { run(append([]string{"ip", "netns", "exec", name}, args...)...) }
	in("ip", "link", "set", "lo", "up")
	// Routes for the documentation ranges, so connects get as far as the
	// nat hook, which sends them to the local listener.
	in("ip", "route", "add", "192.0.2.0/24", "dev", "lo")
	in("ip", "-6", "route", "add", "2001:db8::/64", "dev", "lo")

	var ln net.Listener
	conns := map[string]net.Conn{}
	var port int
	err := inNetns(t, name, func() error {
		var err error
		if ln, err = net.Listen("tcp", "[::]:0"); err != nil {
			return err
		}
		port = ln.Addr().(*net.TCPAddr).Port
		rules := fmt.Sprintf(`table inet berth_egress_test {
	chain out {
		type nat hook output priority -100;
		ip daddr 192.0.2.10 tcp dport 443 redirect to :%d
		ip6 daddr 2001:db8::10 tcp dport 8443 redirect to :%d
	}
}`, port, port)
		cmd := exec.Command("nft", "-f", "-")
		cmd.Stdin = strings.NewReader(rules)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("nft: %v %s", err, out)
		}
		for _, dst := range []string{"192.0.2.10:443", "[2001:db8::10]:8443"} {
			c, err := net.Dial("tcp", dst)
			if err != nil {
				return err
			}
			conns[dst] = c
		}
		return nil
	})
	if err != nil {
		t.Skipf("no redirect in this kernel: %v", err)
	}
	defer ln.Close()
	for range conns {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		got, err := OriginalDst(c)
		if err != nil {
			t.Fatal(err)
		}
		want := "192.0.2.10:443"
		if got.Addr().Is6() {
			want = "[2001:db8::10]:8443"
		}
		if got != netip.MustParseAddrPort(want) {
			t.Errorf("original destination %s, want %s (local %s)", got, want, c.LocalAddr())
		}
	}
	for _, c := range conns {
		c.Close()
	}
}

// inNetns runs f on a thread moved into the named network namespace, so the
// sockets f creates live there.
func inNetns(t *testing.T, name string, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // the thread is not unlocked: it dies with the goroutine
		ns, err := os.Open("/var/run/netns/" + name)
		if err != nil {
			errc <- err
			return
		}
		defer ns.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- err
			return
		}
		errc <- f()
	}()
	return <-errc
}

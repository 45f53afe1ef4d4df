package stacktest

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// hostNet is a stack's stand-in for the network between machines: a
// bridge in this (the gateway's) network namespace that the veth of every
// netns host joins, like one LAN. The hosts reach the stack's Temporal at
// the bridge's address through a relay (the dev server serves only
// loopback: its own services dial each other there); no container of a
// host is reachable from here at all. Traffic between a host and this
// namespace is local delivery (INPUT/OUTPUT), so the machine's FORWARD
// policy (DROP under Docker) does not apply; nothing forwards or NATs the
// hosts' traffic further, so their sandboxes have no internet (the test
// image needs none).
type hostNet struct {
	prefix string // unique name prefix of the bridge, netns and veths ("bh" + hex)
	subnet string // "10.232.N"
	bridge string

	mu     sync.Mutex
	next   int // last host number handed out
	relays []net.Listener
}

// newHostNet makes the bridge on a free 10.232.N.0/24.
func newHostNet() (*hostNet, error) {
	n := &hostNet{prefix: "bh" + randHex(3)}
	n.bridge = n.prefix + "br"
	out, err := exec.Command("ip", "-4", "-o", "addr").Output()
	if err != nil {
		return nil, fmt.Errorf("ip addr: %w", err)
	}
	for range 50 {
		cand := fmt.Sprintf("10.232.%d", 100+rand.IntN(150))
		if !bytes.Contains(out, []byte(" "+cand+".")) {
			n.subnet = cand
			break
		}
	}
	if n.subnet == "" {
		return nil, fmt.Errorf("no free 10.232.x.0/24 for the hosts' network")
	}
	if err := run("ip", "link", "add", n.bridge, "type", "bridge"); err != nil {
		return nil, err
	}
	if err := run("ip", "addr", "add", n.Gateway()+"/24", "dev", n.bridge); err != nil {
		n.remove()
		return nil, err
	}
	if err := run("ip", "link", "set", n.bridge, "up"); err != nil {
		n.remove()
		return nil, err
	}
	return n, nil
}

// Gateway is the bridge's address: this namespace as the hosts see it.
func (n *hostNet) Gateway() string { return n.subnet + ".1" }

// claim hands out a host number (its address is subnet.<k+1>).
func (n *hostNet) claim() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.next++
	return n.next
}

func (n *hostNet) remove() {
	n.mu.Lock()
	for _, ln := range n.relays {
		ln.Close()
	}
	n.mu.Unlock()
	_ = run("ip", "link", "del", n.bridge)
}

// relay listens on the bridge's address and carries every connection to
// target; it returns the address it listens on.
func (n *hostNet) relay(target string) (string, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(n.Gateway(), "0"))
	if err != nil {
		return "", err
	}
	n.mu.Lock()
	n.relays = append(n.relays, ln)
	n.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go pipe(c, target)
		}
	}()
	return ln.Addr().String(), nil
}

func pipe(c net.Conn, target string) {
	defer c.Close()
	up, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		up.(*net.TCPConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	c.(*net.TCPConn).CloseWrite()
	<-done
}

// run runs a setup command, its output in the error.
func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// Package freeport picks TCP ports for servers a process starts for
// others to listen on (the Temporal dev server, a test stack's gateway
// and metrics), where the port must be known before its server starts.
//
// Asking the kernel for port 0 and closing the listener hands out a port
// of the ephemeral range, which the kernel also hands to outgoing
// connections as their source ports: on a busy machine, between the pick
// and the server's bind, a connection takes it (CI saw a stack's gateway
// answered by another server, and a metrics port refused). So ports come
// from below the ephemeral range, where only listeners live, and each is
// claimed by a lock file that processes picking on this machine honour
// for as long as the picking process lives.
package freeport

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// lowest is where picks start; below it are well-known services' ports.
const lowest = 10000

var (
	mu    sync.Mutex
	held  []*os.File // claims, kept open (and so locked) while the process lives
	tries = 200
)

// Pick returns a port on ip that nothing listens on and no other process
// on this machine has picked, below the kernel's ephemeral range.
func Pick(ip string) (int, error) {
	hi := ephemeralLow() - 1
	if hi <= lowest {
		return anyPort(ip)
	}
	dir := filepath.Join(os.TempDir(), "berth-ports")
	if err := os.MkdirAll(dir, 0o1777); err != nil {
		return anyPort(ip)
	}
	mu.Lock()
	defer mu.Unlock()
	for range tries {
		p := lowest + rand.IntN(hi-lowest+1)
		f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(p)), os.O_CREATE|os.O_RDWR, 0o666)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close() // another process's
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p)))
		if err != nil {
			f.Close() // something else listens there
			continue
		}
		l.Close()
		held = append(held, f)
		return p, nil
	}
	return 0, errors.New("freeport: no free port found below the ephemeral range")
}

// ephemeralLow is the first port of the kernel's ephemeral range (32768
// when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 32768
	}
	return n
}

// anyPort is the kernel's pick, for a machine whose ephemeral range
// leaves no room below it.
func anyPort(ip string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, fmt.Errorf("freeport: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

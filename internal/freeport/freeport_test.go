package freeport

import (
	"net"
	"strconv"
	"testing"
)

// Picks come from below the ephemeral range, are free to listen on, and
// are never handed out twice while the picking process lives.
func TestPickIsFreeUniqueAndBelowTheEphemeralRange(t *testing.T) {
	seen := map[int]bool{}
	for range 50 {
		p, err := Pick("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		if p < lowest || p >= ephemeralLow() {
			t.Fatalf("port %d outside [%d, %d)", p, lowest, ephemeralLow())
		}
		if seen[p] {
			t.Fatalf("port %d picked twice", p)
		}
		seen[p] = true
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			t.Fatalf("picked port %d: %v", p, err)
		}
		l.Close()
	}
}

package host

import (
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
)

// slowLister is a secret store that takes its time, as one over a slow or
// unreachable bucket does.
type slowLister struct {
	delay time.Duration
	calls atomic.Int32
	hosts []string
}

func (s *slowLister) BoundHosts() ([]string, error) {
	s.calls.Add(1)
	time.Sleep(s.delay)
	return s.hosts, nil
}

// Telling whether a host is bound never waits on the store: the list is
// read in the background and Match answers from the last one.
func TestBoundHostsNeverWaitOnTheStore(t *testing.T) {
	st := &slowLister{delay: 2 * time.Second, hosts: []string{"api.example.test"}}
	b := newBoundHosts(st, zap.NewNop())
	for i := range 50 {
		start := time.Now()
		b.Match("api.example.test")
		if d := time.Since(start); d > 100*time.Millisecond {
			t.Fatalf("Match %d waited %s for the store", i, d)
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for !b.Match("api.example.test") {
		if time.Now().After(deadline) {
			t.Fatal("the bound host was never seen")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := st.calls.Load(); n > 2 {
		t.Fatalf("%d reads of the store at once: one refresh at a time", n)
	}
}

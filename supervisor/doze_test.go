package supervisor

import (
	"testing"
	"time"
)

func TestDozeFenceWaitsForIdleClientsAndHoldsRequestsUntilThaw(t *testing.T) {
	a := newActivity(time.Now().Add(-time.Minute))
	a.processStarted() // a running process does not keep a doze off
	a.lastClient = time.Now().Add(-time.Minute)
	if !a.requestStarted(nil) {
		t.Fatal("a request was refused before any fence")
	}
	if ok, _ := a.fence(time.Second); ok {
		t.Fatal("fenced with a request in flight")
	}
	a.requestEnded()
	if ok, idle := a.fence(time.Second); ok {
		t.Fatalf("fenced %d ms after a request ended, wanted a second", idle)
	}
	a.lastClient = time.Now().Add(-2 * time.Second)
	if ok, idle := a.fence(time.Second); !ok || idle < 2000 {
		t.Fatalf("no fence after 2 s without clients (ok=%v idle=%d)", ok, idle)
	}
	started := make(chan bool, 1)
	go func() { started <- a.requestStarted(nil) }()
	select {
	case <-started:
		t.Fatal("a request was taken while fenced")
	case <-time.After(100 * time.Millisecond):
	}
	a.unfence()
	select {
	case ok := <-started:
		if !ok {
			t.Fatal("the held request was refused")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the held request did not go on after the thaw")
	}
	a.requestEnded()
	if ok, _ := a.fence(time.Second); ok {
		t.Fatal("the thaw did not count as a client's coming")
	}
}

func TestDozeFenceLetsAHeldClientLeave(t *testing.T) {
	a := newActivity(time.Now().Add(-time.Minute))
	if ok, _ := a.fence(time.Second); !ok {
		t.Fatal("no fence")
	}
	done := make(chan struct{})
	close(done)
	if a.requestStarted(done) {
		t.Fatal("a request whose client left was counted")
	}
	if a.inFlight != 0 {
		t.Fatalf("inFlight %d", a.inFlight)
	}
}

func TestDozeFenceLiftsItselfWhenNoFreezeCame(t *testing.T) {
	a := newActivity(time.Now().Add(-time.Minute))
	if ok, _ := a.fence(time.Second); !ok {
		t.Fatal("no fence")
	}
	a.mu.Lock()
	a.fencedUntil = time.Now().Add(50 * time.Millisecond) // as if dozeFence were nearly up
	a.mu.Unlock()
	if !a.requestStarted(nil) {
		t.Fatal("a fence outlived dozeFence")
	}
}

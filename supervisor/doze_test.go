package supervisor

import (
	"testing"
	"time"
)

func TestDozeFenceWaitsForIdleClientsAndRefusesRequestsUntilThaw(t *testing.T) {
	a := newActivity(time.Now().Add(-time.Minute))
	a.processStarted() // a running process does not keep a doze off
	a.lastClient = time.Now().Add(-time.Minute)
	if !a.requestStarted() {
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
	if a.requestStarted() {
		t.Fatal("a request was taken while fenced")
	}
	a.unfence()
	if !a.requestStarted() {
		t.Fatal("a request was refused after the thaw")
	}
	a.requestEnded()
	if ok, _ := a.fence(time.Second); ok {
		t.Fatal("the thaw did not count as a client's coming")
	}
}

func TestDozeFenceLiftsItselfWhenNoFreezeCame(t *testing.T) {
	a := newActivity(time.Now().Add(-time.Minute))
	if ok, _ := a.fence(time.Second); !ok {
		t.Fatal("no fence")
	}
	a.fencedUntil = time.Now().Add(-time.Millisecond) // dozeFence passed
	if !a.requestStarted() {
		t.Fatal("a fence outlived dozeFence")
	}
}

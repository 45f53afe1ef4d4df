package gateway

import (
	"testing"
	"time"
)

func TestTrustWindowLeavesAMarginBeforeDozeAfter(t *testing.T) {
	for dozeAfter, want := range map[time.Duration]time.Duration{
		time.Second:      500 * time.Millisecond, // the margin's floor
		4 * time.Second:  3 * time.Second,        // a quarter
		30 * time.Second: 25 * time.Second,       // the margin's cap
		time.Hour:        time.Hour - 5*time.Second,
	} {
		if got := trustWindow(dozeAfter); got != want {
			t.Errorf("trustWindow(%s) = %s, want %s", dozeAfter, got, want)
		}
	}
	now := time.Now()
	if !(target{}).trusted(now) {
		t.Error("a sandbox that never dozes must always be trusted")
	}
	if (target{dozeAfter: 4 * time.Second, contact: now.Add(-3 * time.Second)}).trusted(now) {
		t.Error("trusted past the window")
	}
	if !(target{dozeAfter: 4 * time.Second, contact: now.Add(-2 * time.Second)}).trusted(now) {
		t.Error("not trusted within the window")
	}
}

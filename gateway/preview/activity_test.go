package preview

import (
	"sync"
	"testing"
	"time"
)

// sends records when touches were sent, per sandbox.
type sends struct {
	mu    sync.Mutex
	at    map[string][]time.Time
	delay time.Duration // how long each send takes
}

func (s *sends) send(name string) {
	s.mu.Lock()
	if s.at == nil {
		s.at = map[string][]time.Time{}
	}
	s.at[name] = append(s.at[name], time.Now())
	s.mu.Unlock()
	time.Sleep(s.delay)
}

func (s *sends) of(name string) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.at[name]...)
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestPreviewActivityThrottlesPerSandbox: a burst of requests sends one
// touch per sandbox; the next request after the throttle sends another.
func TestPreviewActivityThrottlesPerSandbox(t *testing.T) {
	// A throttle long enough that a busy machine's scheduling delays
	// (test packages run side by side) stay well inside it.
	p := &activity{every: time.Second, hold: 2500 * time.Millisecond}
	var s sends
	for range 100 {
		p.begin("a", s.send)()
		p.begin("b", s.send)()
	}
	waitFor(t, "the first touches", time.Second, func() bool { return len(s.of("a")) == 1 && len(s.of("b")) == 1 })
	first := s.of("a")[0]
	time.Sleep(100 * time.Millisecond)
	p.begin("a", s.send)()
	time.Sleep(20 * time.Millisecond)
	if n := len(s.of("a")); n != 1 && time.Since(first) < p.every {
		t.Fatalf("%d touches within the throttle, want 1", n)
	}
	time.Sleep(time.Until(first.Add(p.every + 50*time.Millisecond)))
	p.begin("a", s.send)()
	waitFor(t, "the touch after the throttle", time.Second, func() bool { return len(s.of("a")) == 2 })
	if n := len(s.of("b")); n != 1 {
		t.Fatalf("sandbox b: %d touches without traffic, want 1", n)
	}
}

// TestPreviewActivityRenewsWhileOpenThenForgets: while a connection is
// open the touches go on, never further apart than the hold; once it
// closed they stop, and the tracker forgets the sandbox and stops ticking.
func TestPreviewActivityRenewsWhileOpenThenForgets(t *testing.T) {
	p := &activity{every: 100 * time.Millisecond, hold: 250 * time.Millisecond}
	var s sends
	end := p.begin("a", s.send)
	time.Sleep(time.Second)
	end()
	at := s.of("a")
	if len(at) < 6 || len(at) > 11 {
		t.Fatalf("%d touches in 1 s open with a throttle of 100 ms", len(at))
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap >= p.hold {
			t.Fatalf("touches %v apart, not less than the hold %v", gap, p.hold)
		}
	}
	waitFor(t, "the tracker to forget the sandbox", time.Second, func() bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return len(p.use) == 0 && !p.ticking
	})
	if n := len(s.of("a")); n > len(at)+1 {
		t.Fatalf("%d touches after the connection closed", n-len(at))
	}
}

// TestPreviewActivitySlowSupervisorGetsOneTouchAtATime: a touch that
// takes long is not joined by others for the same sandbox.
func TestPreviewActivitySlowSupervisorGetsOneTouchAtATime(t *testing.T) {
	p := &activity{every: 20 * time.Millisecond, hold: 100 * time.Millisecond}
	// The first send takes far longer than the loop, even on a busy
	// machine; sends are counted as they begin.
	s := sends{delay: 3 * time.Second}
	end := p.begin("a", s.send)
	start := time.Now()
	for range 20 {
		p.begin("a", s.send)()
		time.Sleep(10 * time.Millisecond)
	}
	end()
	if n := len(s.of("a")); n != 1 && time.Since(start) < s.delay {
		t.Fatalf("%d touches while the first was on its way, want 1", n)
	}
}

// TestPreviewActivityRenewAfterRetarget: a request's first touch went to
// a stale address (slow to fail: it is still on its way); once the dialer
// found the sandbox anew, a touch follows at once, throttle or not, and a
// renew with nothing on its way touches at once too.
func TestPreviewActivityRenewAfterRetarget(t *testing.T) {
	p := &activity{every: time.Hour, hold: 2 * time.Hour}
	s := sends{delay: 200 * time.Millisecond}
	end := p.begin("a", s.send)
	defer end()
	waitFor(t, "the first touch", time.Second, func() bool { return len(s.of("a")) == 1 })
	p.renew("a", s.send)
	waitFor(t, "the touch after the retarget", time.Second, func() bool { return len(s.of("a")) == 2 })
	if gap := s.of("a")[1].Sub(s.of("a")[0]); gap < s.delay {
		t.Fatalf("the renewed touch joined the one on its way (%v apart)", gap)
	}
	time.Sleep(s.delay + 50*time.Millisecond) // nothing on its way now
	p.renew("a", s.send)
	waitFor(t, "a renew's touch", time.Second, func() bool { return len(s.of("a")) == 3 })
	p.renew("b", s.send) // no preview traffic: nothing to hold awake
	time.Sleep(50 * time.Millisecond)
	if n := len(s.of("b")); n != 0 {
		t.Fatalf("%d touches of a sandbox without preview traffic", n)
	}
}

// BenchmarkPreviewActivityBegin is what recording costs a preview request
// in the gateway (the touch itself is sent in the background).
func BenchmarkPreviewActivityBegin(b *testing.B) {
	p := &activity{every: touchEvery, hold: touchHold}
	send := func(string) {}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.begin("a", send)()
		}
	})
}

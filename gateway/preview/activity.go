package preview

import (
	"sync"
	"time"
)

// Preview traffic goes from the gateway straight to the sandbox's port,
// past its supervisor, which therefore cannot count it as activity: a
// sandbox whose only work is a service would sleep while people use its
// preview. So the gateway tells the supervisor (POST /v1/activity): when a
// preview request to a running sandbox starts (the request that woke it
// too), and again while one stays open (a WebSocket, an event stream, a
// long download or upload).
//
// Each touch holds the sandbox busy for touchHold, longer than the
// longest gap between two touches while traffic lasts (touchEvery
// plus one tick of touchEvery/2), so the sandbox is never idle
// between them whatever its sleepAfter (as short as 1 s): touching
// "every few seconds" without a hold would only keep awake sandboxes whose
// sleepAfter is longer than the gap. The gateway renews holds rather than
// the supervisor tracking connections: a gateway that dies stops renewing
// and its holds lapse within touchHold. After the last request a
// sandbox sleeps within sleepAfter + touchHold (+ the workflow's
// check and the stop).
const (
	touchEvery = 2 * time.Second // at most one touch per sandbox this often
	touchHold  = 5 * time.Second // each touch keeps the sandbox busy this long
)

// activity throttles the touches: one per sandbox per every, sent
// in the background (a preview request never waits for one nor fails
// because of one).
type activity struct {
	every, hold time.Duration

	mu      sync.Mutex
	use     map[string]*sandboxUse
	ticking bool // a tick loop runs (while any sandbox is in use)
}

type sandboxUse struct {
	open    int       // preview requests and connections in progress
	last    time.Time // when the last touch was sent
	sending bool      // a touch is on its way
	again   bool      // another touch follows the one on its way (renew)
}

// begin records a preview request of sandbox name as it starts and
// returns what to call when it ends; send delivers one touch.
func (p *activity) begin(name string, send func(name string)) (end func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.use == nil {
		p.use = map[string]*sandboxUse{}
	}
	u := p.use[name]
	if u == nil {
		u = &sandboxUse{}
		p.use[name] = u
	}
	u.open++
	p.touch(name, u, time.Now(), send)
	if !p.ticking {
		p.ticking = true
		go p.tick(send)
	}
	return func() {
		p.mu.Lock()
		u.open-- // (u stays in the map while open: tick drops only unused entries)
		p.mu.Unlock()
	}
}

// touch sends one touch for name unless one was sent within every or is
// still on its way. Called with p.mu held.
func (p *activity) touch(name string, u *sandboxUse, now time.Time, send func(string)) {
	if u.sending || now.Sub(u.last) < p.every {
		return
	}
	u.last, u.sending = now, true
	go func() {
		send(name)
		p.mu.Lock()
		u.sending = false
		if u.again {
			u.again, u.last = false, time.Time{}
			p.touch(name, u, time.Now(), send)
		}
		p.mu.Unlock()
	}()
}

// renew sends a touch for name now, throttle or not, once any touch on its
// way has returned: the last went to an address the sandbox no longer has
// (a preview's dial found it gone and looked the sandbox up again,
// waking it), so nothing holds the sandbox awake until the next touch,
// which the throttle would put off by up to every, longer than a short
// sleepAfter. No-op for a sandbox without preview traffic.
func (p *activity) renew(name string, send func(string)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.use[name]
	switch {
	case u == nil:
	case u.sending:
		u.again = true
	default:
		u.last = time.Time{}
		p.touch(name, u, time.Now(), send)
	}
}

// tick renews the touches of sandboxes with a request or connection open
// and forgets the others once their last hold is over; it ends when no
// sandbox is left.
func (p *activity) tick(send func(string)) {
	t := time.NewTicker(p.every / 2)
	defer t.Stop()
	for now := range t.C {
		p.mu.Lock()
		for name, u := range p.use {
			switch {
			case u.open > 0:
				p.touch(name, u, now, send)
			case !u.sending && now.Sub(u.last) > p.hold:
				delete(p.use, name)
			}
		}
		done := len(p.use) == 0
		if done {
			p.ticking = false
		}
		p.mu.Unlock()
		if done {
			return
		}
	}
}

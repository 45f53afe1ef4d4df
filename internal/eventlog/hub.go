package eventlog

import (
	"context"
	"errors"
	"sync"

	"github.com/berthdev/berth/api"
)

// Hub serves many listeners of the same sandbox from ONE long-poll follower
// per sandbox. Each listener reads the history it missed on its own, then
// takes new events from its own buffered mailbox; a listener that falls behind
// is dropped from the fan-out (never blocking the others) and resumes from its
// last offset by re-reading history. Offsets make the hand-over exact: nothing
// is lost or emitted twice.
type Hub struct {
	reader Reader
	buffer int

	mu        sync.Mutex
	followers map[string]*follower
	started   int // followers ever started, for tests and metrics
	dropped   int // listeners switched to history for lagging
	closed    bool
}

// DefaultBuffer is a listener's mailbox size: how far it may lag behind the
// follower before it is switched to reading history.
const DefaultBuffer = 256

// NewHub makes a Hub over r; buffer <= 0 means DefaultBuffer.
func NewHub(r Reader, buffer int) *Hub {
	if buffer <= 0 {
		buffer = DefaultBuffer
	}
	return &Hub{reader: r, buffer: buffer, followers: map[string]*follower{}}
}

// ErrHubClosed is returned to listeners after Close.
var ErrHubClosed = errors.New("event hub closed")

// Sandbox has Reader.Sandbox's contract; with follow=true the live part comes
// from the shared follower.
func (h *Hub) Sandbox(ctx context.Context, name string, after int64, follow bool, emit Emit) error {
	if !follow {
		return h.reader.Sandbox(ctx, name, after, false, emit)
	}
	// Fail fast (ErrNotFound) before starting a follower for a bad name.
	first, err := h.reader.firstRunID(ctx, name)
	if err != nil {
		return err
	}
	last := after
	deliver := func(env api.Event) (done bool, err error) {
		if env.Offset > last {
			last = env.Offset
			if err := emit(env); err != nil {
				return true, err
			}
		}
		return env.Type == api.EventDestroyed, nil
	}
	for {
		sub, f, err := h.subscribe(name)
		if err != nil {
			return err
		}
		done, err := h.catchUp(ctx, name, first, f, &last, deliver)
		if done || err != nil {
			h.unsubscribe(name, f, sub)
			return err
		}
		done, err = h.drain(ctx, sub, deliver)
		h.unsubscribe(name, f, sub)
		if done || err != nil {
			return err
		}
		switch {
		case sub.end.err != nil:
			return sub.end.err
		case !sub.end.dropped:
			// The follower ended (destroyed seen, or the chain closed): take
			// whatever this listener has not had from history and stop.
			_, err := h.reader.walk(ctx, name, first, last, false, emit)
			return err
		}
		// Dropped for lagging: loop to resume from `last` via history.
	}
}

// catchUp waits until the follower is live, then reads history after *last up
// to its current end: everything before the follower's live point is in that
// read, everything after is in the mailbox.
func (h *Hub) catchUp(ctx context.Context, name, first string, f *follower, last *int64,
	deliver func(api.Event) (bool, error)) (done bool, err error) {
	select {
	case <-f.live:
	case <-ctx.Done():
		return true, ctx.Err()
	}
	destroyed, err := h.reader.walk(ctx, name, first, *last, false, func(env api.Event) error {
		_, err := deliver(env)
		return err
	})
	return destroyed, err
}

// drain delivers the mailbox until it closes (dropped or follower ended) or
// `destroyed` is delivered.
func (h *Hub) drain(ctx context.Context, sub *subscriber, deliver func(api.Event) (bool, error)) (done bool, err error) {
	for {
		select {
		case env, ok := <-sub.ch:
			if !ok {
				return false, nil
			}
			if done, err := deliver(env); done || err != nil {
				return true, err
			}
		case <-ctx.Done():
			return true, ctx.Err()
		}
	}
}

// subscribe adds a mailbox to the sandbox's follower, starting one if needed.
func (h *Hub) subscribe(name string) (*subscriber, *follower, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, nil, ErrHubClosed
	}
	f := h.followers[name]
	if f == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f = &follower{cancel: cancel, live: make(chan struct{}), subs: map[*subscriber]struct{}{}}
		h.followers[name] = f
		h.started++
		go h.run(ctx, name, f)
	}
	sub := &subscriber{ch: make(chan api.Event, h.buffer)}
	f.subs[sub] = struct{}{}
	return sub, f, nil
}

// unsubscribe removes a mailbox; the last one out stops the follower, so an
// idle sandbox costs no long poll.
func (h *Hub) unsubscribe(name string, f *follower, sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := f.subs[sub]; ok {
		delete(f.subs, sub)
		close(sub.ch)
	}
	if len(f.subs) == 0 && h.followers[name] == f {
		delete(h.followers, name)
		f.cancel()
	}
}

// run is the follower goroutine: it fans each new envelope out without ever
// blocking on a listener.
func (h *Hub) run(ctx context.Context, name string, f *follower) {
	err := h.reader.tail(ctx, name, func() { close(f.live) }, func(env api.Event) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		for sub := range f.subs {
			select {
			case sub.ch <- env:
			default:
				sub.end = subEnd{dropped: true}
				h.dropped++
				delete(f.subs, sub)
				close(sub.ch)
			}
		}
		return nil
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		err = nil // stopped because nobody listens any more
	}
	for sub := range f.subs {
		sub.end = subEnd{err: err}
		delete(f.subs, sub)
		close(sub.ch)
	}
	if h.followers[name] == f {
		delete(h.followers, name)
	}
	f.cancel()
}

// HubStats counts followers (one per followed sandbox, however many
// listeners it has) and listeners dropped for lagging.
type HubStats struct {
	Running, Started, Dropped int
}

// Stats reports the hub's counters.
func (h *Hub) Stats() HubStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	return HubStats{Running: len(h.followers), Started: h.started, Dropped: h.dropped}
}

// Close stops every follower; their listeners get ErrHubClosed.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for name, f := range h.followers {
		for sub := range f.subs {
			sub.end = subEnd{err: ErrHubClosed}
			delete(f.subs, sub)
			close(sub.ch)
		}
		delete(h.followers, name)
		f.cancel()
	}
}

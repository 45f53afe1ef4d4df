package dockerrt

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
)

// A worker reads Docker's events through one subscription, whatever the
// number of its parts that care (the egress host, the exit watcher, the
// network guard's keeper): one stream to the daemon and one reconnect
// loop, each part registering what it wants. Each part gets its events in
// order on a goroutine of its own, so a slow one (a Docker inspect per
// event) holds up none of the others.

// EventFilter picks one subscriber's events; an empty field matches all.
type EventFilter struct {
	Type    events.Type
	Actions []events.Action
	// Attributes must all be the actor's (a container's labels are its
	// attributes; a network's name is its "name").
	Attributes map[string]string
}

func (f EventFilter) match(m events.Message) bool {
	if f.Type != "" && m.Type != f.Type {
		return false
	}
	if len(f.Actions) > 0 && !slices.Contains(f.Actions, m.Action) {
		return false
	}
	for k, v := range f.Attributes {
		if m.Actor.Attributes[k] != v {
			return false
		}
	}
	return true
}

// EventHandler is one subscriber.
type EventHandler struct {
	// Event is called for each matching event.
	Event func(context.Context, events.Message)
	// Resync is called once the subscription is open, and again after
	// every reconnect: events may have been missed meanwhile, so the
	// subscriber looks at what is there now. Events of about a second
	// before each (re)connect are delivered again, so nothing between a
	// Resync's look and the stream is lost (a subscriber takes an event
	// twice). Nil: nothing to do.
	Resync func(context.Context)
}

// Subscribe delivers the events f matches to h until ctx ends.
func (r *Runtime) Subscribe(ctx context.Context, f EventFilter, h EventHandler) {
	s := &subscriber{filter: f, h: h, wake: make(chan struct{}, 1)}
	r.hub.add(r, s)
	go func() {
		s.run(ctx)
		r.hub.remove(s)
	}()
}

// eventHub is a Runtime's one events subscription: running while it has
// subscribers.
type eventHub struct {
	mu     sync.Mutex
	subs   map[*subscriber]bool
	open   bool               // the stream is up: a new subscriber resyncs at once
	cancel context.CancelFunc // the loop's; nil when it is not running
}

// eventBackoff bounds the wait between reconnects while Docker is away.
const (
	eventBackoffMin = time.Second
	eventBackoffMax = 10 * time.Second
)

func (h *eventHub) add(r *Runtime, s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[*subscriber]bool{}
	}
	h.subs[s] = true
	if h.open {
		s.push(item{resync: true})
	}
	if h.cancel == nil {
		ctx, cancel := context.WithCancel(context.Background())
		h.cancel = cancel
		go h.run(ctx, r)
	}
}

func (h *eventHub) remove(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, s)
	if len(h.subs) == 0 && h.cancel != nil {
		h.cancel()
		h.cancel, h.open = nil, false
	}
}

// each calls fn for every subscriber, under the lock.
func (h *eventHub) each(ctx context.Context, fn func(*subscriber)) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return false // stopped: a new loop may own the subscribers now
	}
	for s := range h.subs {
		fn(s)
	}
	return true
}

func (h *eventHub) run(ctx context.Context, r *Runtime) {
	types := filters.NewArgs(
		filters.Arg("type", string(events.ContainerEventType)),
		filters.Arg("type", string(events.NetworkEventType)))
	backoff := eventBackoffMin
	for ctx.Err() == nil {
		since := time.Now().Add(-time.Second)
		msgs, errs := r.cli.Events(ctx, events.ListOptions{Filters: types, Since: strconv.FormatInt(since.Unix(), 10)})
		h.each(ctx, func(s *subscriber) { s.push(item{resync: true}) })
		h.mu.Lock()
		if ctx.Err() == nil {
			h.open = true
		}
		h.mu.Unlock()
	stream:
		for {
			select {
			case <-ctx.Done():
				return
			case m := <-msgs:
				backoff = eventBackoffMin
				h.each(ctx, func(s *subscriber) {
					if s.filter.match(m) {
						s.push(item{msg: m})
					}
				})
			case <-errs:
				break stream
			}
		}
		h.mu.Lock()
		if ctx.Err() == nil {
			h.open = false
		}
		h.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, eventBackoffMax)
	}
}

// item is an event, or a resync marker (between the events before a
// reconnect and those after it).
type item struct {
	msg    events.Message
	resync bool
}

type subscriber struct {
	filter EventFilter
	h      EventHandler
	mu     sync.Mutex
	queue  []item
	wake   chan struct{}
}

// push queues it without waiting: the hub never waits on a subscriber.
func (s *subscriber) push(it item) {
	s.mu.Lock()
	s.queue = append(s.queue, it)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *subscriber) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		s.mu.Lock()
		q := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, it := range q {
			if ctx.Err() != nil {
				return
			}
			switch {
			case it.resync && s.h.Resync != nil:
				s.h.Resync(ctx)
			case !it.resync && s.h.Event != nil:
				s.h.Event(ctx, it.msg)
			}
		}
	}
}

package egress

import (
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

// RefusalBatcher sums refusals per sandbox into reports for its event
// stream, so that code refused in a loop writes a few small events, not one
// per attempt: a sandbox's first refusal opens a window of Gather; its
// report is sent when the window ends, and the next window of that sandbox
// ends no sooner than Interval after the last report. While refusals go on
// the interval doubles up to MaxInterval; a quiet sandbox starts again at
// Interval. A report lists the first MaxRefusalsListed distinct refusals
// with their counts, their texts truncated.
type RefusalBatcher struct {
	// Send delivers one report; it is called from a timer's goroutine, one
	// call at a time per sandbox.
	Send        func(sandbox string, r schemas.EgressRefused)
	Gather      time.Duration // 0 means 2 s
	Interval    time.Duration // 0 means 5 s
	MaxInterval time.Duration // 0 means 5 min

	mu  sync.Mutex
	sbs map[string]*refusalWindow
}

type refusalWindow struct {
	report   *schemas.EgressRefused // pending, nil when none
	index    map[schemas.EgressRefusal]int
	timer    *time.Timer
	lastSent time.Time
	interval time.Duration
}

// Add counts one refusal. Refusals of unknown sources (no sandbox) are not
// reported: there is no stream to put them on.
func (b *RefusalBatcher) Add(f Refusal) {
	if f.Sandbox == "" || b.Send == nil {
		return
	}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sbs == nil {
		b.sbs = map[string]*refusalWindow{}
	}
	w := b.sbs[f.Sandbox]
	if w == nil {
		w = &refusalWindow{interval: b.interval()}
		b.sbs[f.Sandbox] = w
	}
	if w.report == nil {
		w.report = &schemas.EgressRefused{FirstAt: now.UTC()}
		w.index = map[schemas.EgressRefusal]int{}
		at := max(b.gather(), time.Until(w.lastSent.Add(w.interval)))
		sandbox := f.Sandbox
		w.timer = time.AfterFunc(at, func() { b.flush(sandbox) })
	}
	r := w.report
	r.Count++
	r.LastAt = now.UTC()
	switch f.Kind {
	case "dns":
		r.ByKind.DNS++
	case "connect":
		r.ByKind.Connect++
	default:
		f.Kind = "http"
		r.ByKind.HTTP++
	}
	one := schemas.EgressRefusal{Kind: f.Kind, Host: clip(f.Host), Secret: clip(f.Secret), Reason: clip(f.Reason)}
	if f.Destination.IsValid() {
		one.Destination = f.Destination.String()
	}
	if one.Reason == "" {
		one.Reason = "refused"
	}
	if i, ok := w.index[one]; ok {
		if i >= 0 {
			r.First[i].Count++
		}
		return
	}
	if len(r.First) < schemas.MaxRefusalsListed {
		w.index[one] = len(r.First)
		c := one
		c.Count = 1
		r.First = append(r.First, c)
		return
	}
	if len(w.index) < 1024 { // distinct ones beyond the list, counted once each
		w.index[one] = -1
		r.Omitted++
	}
}

// flush sends a sandbox's pending report.
func (b *RefusalBatcher) flush(sandbox string) {
	b.mu.Lock()
	w := b.sbs[sandbox]
	if w == nil || w.report == nil {
		b.mu.Unlock()
		return
	}
	r := *w.report
	now := time.Now()
	if !w.lastSent.IsZero() && now.Sub(w.lastSent) < 2*w.interval+b.gather() {
		w.interval = min(2*w.interval, b.maxInterval()) // refusals go on
	} else {
		w.interval = b.interval()
	}
	w.report, w.index, w.lastSent = nil, nil, now
	b.mu.Unlock()
	b.Send(sandbox, r)
	// Forget sandboxes that stayed quiet, so the map holds only the
	// recently refused.
	b.mu.Lock()
	for id, o := range b.sbs {
		if o.report == nil && now.Sub(o.lastSent) > 2*b.maxInterval() {
			delete(b.sbs, id)
		}
	}
	b.mu.Unlock()
}

// Forget drops a sandbox's pending report (it was deleted).
func (b *RefusalBatcher) Forget(sandbox string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if w := b.sbs[sandbox]; w != nil && w.timer != nil {
		w.timer.Stop()
	}
	delete(b.sbs, sandbox)
}

func (b *RefusalBatcher) gather() time.Duration   { return orDefault(b.Gather, 2*time.Second) }
func (b *RefusalBatcher) interval() time.Duration { return orDefault(b.Interval, 5*time.Second) }
func (b *RefusalBatcher) maxInterval() time.Duration {
	return max(orDefault(b.MaxInterval, 5*time.Minute), b.interval())
}

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// clip keeps at most MaxRefusalText bytes of valid UTF-8 without control
// characters (hosts and names come from the sandbox).
func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == utf8.RuneError {
			return '?'
		}
		return r
	}, s)
	if len(s) <= schemas.MaxRefusalText {
		return s
	}
	c, _ := api.Clip(s, schemas.MaxRefusalText-len("…"))
	return c + "…"
}

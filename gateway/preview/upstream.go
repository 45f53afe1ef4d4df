package preview

// The upstream side of a preview: waiting for the sandbox and its port,
// and answering when the app cannot be reached (preview.go has the
// routing and the checks before it, dial.go the dialling).

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/reqlog"
)

// wait is a preview request's bound on waiting for its port, carried to
// the proxy's dialer in the request's context.
type waitKey struct{}

type wait struct {
	name     string
	port     int
	up       Upstream // where the sandbox runs (retarget replaces it)
	deadline time.Time
	waited   time.Duration
	service  string // the declared service on this port, if any
	gaveUp   bool   // set by the dialer: nothing accepted before deadline
	// retarget looks the sandbox up again (waking it) for a dial that
	// failed other than by refusal: the cached address may be a container
	// gone since (slept through another gateway, or within the ports
	// cache's TTL). Used once per request.
	retarget   func(context.Context) (Upstream, error)
	retargeted bool
}

// upstreamFailed answers a preview whose port did not answer: 503 with
// Retry-After when nothing accepted connections within the wait, else 502
// (and the cached container address is dropped: it may be a replaced one).
func (p *Previews) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	pw, _ := r.Context().Value(waitKey{}).(*wait)
	var e *api.Error
	if pw != nil && pw.gaveUp {
		e = api.NewError(http.StatusServiceUnavailable, api.CodeContainerUnavailable,
			"nothing accepts connections on port "+strconv.Itoa(pw.port)+" of sandbox "+pw.name+
				" (waited "+pw.waited.String()+"); "+p.whyNotListening(r.Context(), pw))
		e.Retryable, e.RetryAfterMs = true, 2000
	} else {
		if pw != nil {
			p.sb.Forget(pw.name)
		}
		reqlog.Logger(p.log, r.Context()).Info("preview upstream failed", zap.String("host", r.Host), zap.Error(err))
		e = api.NewError(http.StatusBadGateway, api.CodeUnavailable, "the sandbox's port did not answer: "+err.Error())
		e.Retryable, e.RetryAfterMs = true, 1000
	}
	if sec := e.RetryAfterSeconds(); sec > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(sec, 10))
	}
	if id := w.Header().Get(api.RequestIDHeader); id != "" {
		e.RequestID = id
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(api.ErrorEnvelope{Error: e})
}

// awaitTarget wakes a sleeping sandbox (as exec does) and returns where it
// runs; the request's remaining wait is left for the dialer. The lookup
// and the wake run on without the wait's deadline (ctx's, which ends only
// the waiting): a wake must reach Temporal even when the wait is shorter
// than a Temporal call under load, so that a retry finds it done (CI: a
// 200 ms wait cut the lookup itself, and the answer was
// TEMPORAL_UNAVAILABLE instead of "still waking").
func (p *Previews) awaitTarget(ctx context.Context, name string) (Upstream, error) {
	if up, ok := p.sb.Cached(name); ok {
		return up, nil // the hot path: no goroutine, no Temporal
	}
	done := p.wakes.DoChan(name, func() (any, error) {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundWake)
		defer cancel()
		return p.sb.Resolve(wctx, name, true)
	})
	select {
	case r := <-done:
		if r.Err != nil {
			return Upstream{}, r.Err
		}
		return r.Val.(Upstream), nil
	case <-ctx.Done():
		return Upstream{}, ctx.Err()
	}
}

// backgroundWake bounds a preview's wake once its caller stopped waiting.
const backgroundWake = 5 * time.Minute

package gateway

// The upstream side of a preview: waiting for the sandbox and its port,
// dialling the container, and answering when the app cannot be reached
// (preview.go has the routing and the checks before it).

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
	"go.uber.org/zap"
)

// previewWait is a preview request's bound on waiting for its port,
// carried to the proxy's dialer in the request's context.
type previewWaitKey struct{}

type previewWait struct {
	name     string
	port     int
	deadline time.Time
	waited   time.Duration
	service  string // the declared service on this port, if any
	gaveUp   bool   // set by the dialer: nothing accepted before deadline
	// retarget looks the sandbox up again (waking it) for a dial that
	// failed other than by refusal: the cached address may be a container
	// gone since (slept through another gateway, or within the ports
	// cache's TTL). Used once per request.
	retarget   func(context.Context) (string, error)
	retargeted bool
}

// dialPort is the preview transport's dialer: a refused connection is
// usually a server still starting (or a sandbox just woken), so it retries
// until the request's wait runs out. No probe connection is made: a server
// that accepts once sees only the real request.
func dialPort(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	w, _ := ctx.Value(previewWaitKey{}).(*previewWait)
	for {
		conn, err := dialContainer(ctx, &d, network, addr)
		if err != nil && w != nil && !errors.Is(err, syscall.ECONNREFUSED) && w.retarget != nil && !w.retargeted && ctx.Err() == nil {
			// Nothing was sent yet: dialing where the sandbox is now is safe.
			w.retargeted = true
			if again, rerr := w.retarget(ctx); rerr == nil {
				addr = again
				continue
			}
		}
		if err == nil || w == nil || !errors.Is(err, syscall.ECONNREFUSED) {
			return conn, err
		}
		if time.Until(w.deadline) < 250*time.Millisecond {
			w.gaveUp = true
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// upstreamFailed answers a preview whose port did not answer: 503 with
// Retry-After when nothing accepted connections within the wait, else 502
// (and the cached container address is dropped: it may be a replaced one).
func (s *Server) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	pw, _ := r.Context().Value(previewWaitKey{}).(*previewWait)
	var e *api.Error
	if pw != nil && pw.gaveUp {
		e = api.NewError(http.StatusServiceUnavailable, api.CodeContainerUnavailable,
			"nothing accepts connections on port "+strconv.Itoa(pw.port)+" of sandbox "+pw.name+
				" (waited "+pw.waited.String()+"); "+s.whyNotListening(r.Context(), pw))
		e.Retryable, e.RetryAfterMs = true, 2000
	} else {
		if pw != nil {
			s.targets.drop(pw.name)
		}
		s.logFor(r.Context()).Info("preview upstream failed", zap.String("host", r.Host), zap.Error(err))
		e = api.NewError(http.StatusBadGateway, api.CodeUnavailable, "the sandbox's port did not answer: "+err.Error())
		e.Retryable, e.RetryAfterMs = true, 1000
	}
	if sec := e.RetryAfterSeconds(); sec > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(sec, 10))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(api.ErrorEnvelope{Error: withRequestID(e, w.Header())})
}

// awaitTarget wakes a sleeping sandbox (as exec does) and returns the
// port's address; the request's remaining wait is left for the dialer.
// The lookup and the wake run on without the wait's deadline (ctx's, which
// ends only the waiting): a wake must reach Temporal even when the wait is
// shorter than a Temporal call under load, so that a retry finds it done
// (CI: a 200 ms wait cut the lookup itself, and the answer was
// TEMPORAL_UNAVAILABLE instead of "still waking").
func (s *Server) awaitTarget(ctx context.Context, name string, port int) (string, error) {
	if t, ok := s.targets.get(name); ok && t.trusted(time.Now()) {
		return portAddr(t, port), nil // the hot path: no goroutine, no Temporal
	}
	done := s.preview.wakes.DoChan(name, func() (any, error) {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backgroundWake)
		defer cancel()
		return s.resolve(wctx, name, true, "preview")
	})
	select {
	case r := <-done:
		if r.Err != nil {
			return "", r.Err
		}
		return portAddr(r.Val.(target), port), nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// backgroundWake bounds a preview's wake once its caller stopped waiting.
const backgroundWake = 5 * time.Minute

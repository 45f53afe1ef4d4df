package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// Doze on the hot path. A sandbox with dozeAfter set freezes after that
// long without a client; its supervisor then answers nothing. The gateway
// must not send a request into a frozen container, yet must not ask the
// workflow on every request either. Its rule: a cached target is trusted
// for trustWindow(dozeAfter) after this gateway's last contact with the
// supervisor (a request it sent that was answered, or a thaw or start the
// workflow answered running). The workflow dozes a sandbox only when the
// supervisor saw no client for dozeAfter and no thaw or start came for
// dozeAfter (contract.State.PokedAt), so within the window the sandbox
// cannot be frozen. Past it, one thaw update goes to the workflow (a
// no-op for a running sandbox): terminals, previews and large uploads wait
// for its answer, other hot-path requests go along with it (thawBehind,
// below). Two nets catch what the rule cannot see
// (another gateway lowering dozeAfter, a clock far off): the supervisor's
// doze fence holds requests that come between the decision and the
// freeze until the thaw, and a request without an answer after
// thawWatchdog has the workflow asked whether the sandbox dozes, and
// thawed if so. A request sent into a frozen container is not lost: it is
// served on the thaw, which is what lets thawBehind not wait.

// thawWatchdog is how long a request to a supervisor may go unanswered
// before the gateway checks whether its sandbox dozes.
const thawWatchdog = time.Second

// trustWindow is how long after its last contact a gateway sends requests
// to a dozing-capable sandbox without asking the workflow first.
func trustWindow(dozeAfter time.Duration) time.Duration {
	margin := min(max(dozeAfter/4, 500*time.Millisecond), 5*time.Second)
	return dozeAfter - margin
}

// trusted: the sandbox cannot have dozed since this gateway's last
// contact. A target without a contact yet (read from the memo) is trusted
// once: its first answer sets the contact.
func (t target) trusted(now time.Time) bool {
	return t.dozeAfter <= 0 || t.contact.IsZero() || now.Sub(t.contact) < trustWindow(t.dozeAfter)
}

// contacted records an answered request sent at sent.
func (t *targets) contacted(name, boot string, sent time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.m[name]
	if !ok || v.bootID != boot || v.dozeAfter <= 0 || !sent.After(v.contact) {
		return
	}
	v.contact = sent
	t.m[name] = v
}

// distrust makes the next request ask the workflow first (a recheck
// found the sandbox dozing).
func (t *targets) distrust(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if v, ok := t.m[name]; ok {
		v.contact = time.Unix(1, 0)
		t.m[name] = v
	}
}

// thaw sends the thaw update: a dozing sandbox runs again, any other
// answers as it is.
func (s *Server) thaw(ctx context.Context, name, cause string) (contract.View, error) {
	return s.update(ctx, name, contract.OpThaw, contract.ThawRequest{Cause: cause})
}

// refreshTrust asks the workflow about a cached target past its window:
// the thaw update thaws a dozing sandbox and answers a running one at
// once. ok is false when the target no longer holds (dropped).
func (s *Server) refreshTrust(ctx context.Context, name, cause string, t target) (target, contract.View, bool, error) {
	sent := time.Now()
	if t, ok := s.thawOnHost(ctx, name, cause, t, sent); ok {
		return t, contract.View{}, true, nil
	}
	v, err := s.thaw(ctx, name, cause)
	if err != nil {
		var ae *api.Error
		if errors.As(err, &ae) && ae.Code == api.CodeTemporalUnavailable {
			// Without Temporal nothing can doze or thaw the sandbox:
			// the cache is the only way to it.
			return t, v, true, nil
		}
		s.targets.drop(name)
		return t, v, false, err
	}
	if v.Status == contract.StatusRunning && v.Container != nil && v.Container.BootID == t.bootID {
		t.contact, t.checked, t.dozeAfter = sent, time.Now(), dozeAfterOf(v)
		s.targets.put(name, t)
		return t, v, true, nil
	}
	s.targets.drop(name)
	return t, v, false, nil
}

// thawOnHost asks t's host to thaw t's container directly (thaw_direct.go);
// ok says the container runs that boot now. A thaw it did renews the
// trust from sent: the workflow records it (and its PokedAt) right after.
func (s *Server) thawOnHost(ctx context.Context, name, cause string, t target, sent time.Time) (target, bool) {
	switch s.thawDirect(ctx, t, cause) {
	case directThawed:
		t.contact = sent
		s.targets.contacted(name, t.bootID, sent)
		return t, true
	case directRunning:
		return t, true
	}
	return t, false
}

// watchThaw arms the watchdog of one request to a supervisor; the
// returned func disarms it once the supervisor answered. rctx is the
// request's context, read only for the request id on the watchdog's log
// lines: the thaw must not be cancelled with the request.
func (s *Server) watchThaw(rctx context.Context, name string) func() bool {
	timer := time.AfterFunc(thawWatchdog, func() {
		ctx, cancel := context.WithTimeout(context.Background(), recheckTimeout)
		defer cancel()
		d, err := s.describe(ctx, name)
		if err != nil || d.view.Status != contract.StatusDozing {
			return
		}
		log := s.logFor(rctx)
		log.Info("a request went to a dozing sandbox; thawing it", sandboxlog.Of(name, ""))
		if t, ok := s.targets.get(name); ok {
			if _, ok := s.thawOnHost(ctx, name, "request", t, time.Now()); ok {
				return
			}
		}
		if _, err := s.thaw(ctx, name, "request"); err != nil {
			log.Warn("thaw after a stuck request failed", sandboxlog.Of(name, ""), zap.Error(err))
		}
	})
	return timer.Stop
}

func dozeAfterOf(v contract.View) time.Duration {
	d, err := time.ParseDuration(v.DozeAfter)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// thawCause names what a hot-path request is, for the thawed event.
func thawCause(kind, method, rest string) string {
	switch {
	case kind == "processes" && method == http.MethodPost && rest == "":
		return "exec"
	case kind == "processes" && len(rest) > 5 && rest[len(rest)-5:] == "/logs":
		return "logs"
	case kind == "processes":
		return "process"
	case kind == "terminals":
		return "terminal"
	case kind == "files", kind == "archive":
		return "files"
	}
	return "request"
}

func checkDozeAfter(d api.DozeAfter) *api.Error {
	if d.Set && d.D != 0 && (d.D < contract.MinDozeAfter || d.D > contract.MaxSleepAfter) {
		return badRequest(fmt.Sprintf("dozeAfter %s is out of range: use 0 (never) or 1s to 168h", d.D))
	}
	return nil
}

// thawing is a thaw update sent beside a request (thawBehind).
type thawing struct {
	done chan struct{}
	ok   bool // the target still holds (the sandbox runs that boot)
}

// thawBehindTimeout bounds a thaw sent beside a request.
const thawBehindTimeout = 2 * time.Minute

// thawBehind sends the thaw update for a cached target past its trust
// window without waiting for it: the request goes to the supervisor at
// once and is served the moment the container runs (at once when it was
// not dozing at all).
// Requests that come together share one thaw update.
func (s *Server) thawBehind(name, cause string, t target) *thawing {
	th := &thawing{done: make(chan struct{})}
	ch := s.thaws.DoChan(name+"\x00"+t.bootID, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), thawBehindTimeout)
		defer cancel()
		// refreshTrust asks the host first: the request beside it waits
		// on an unpause, not on a workflow task.
		_, _, ok, err := s.refreshTrust(ctx, name, cause, t)
		return ok && err == nil, nil
	})
	go func() {
		r := <-ch
		th.ok, _ = r.Val.(bool)
		close(th.done)
	}()
	return th
}

// wait waits for the thaw's answer: whether the target still holds.
func (th *thawing) wait() bool {
	<-th.done
	return th.ok
}

// abandonUnless cancels the request sent beside the thaw if the thaw
// finds the target gone before the supervisor answered (the request would
// wait on a container no one thaws). The returned func marks the answer.
func (th *thawing) abandonUnless(ctx context.Context, cancel context.CancelFunc) (answered func()) {
	if th == nil {
		return func() {}
	}
	var mu sync.Mutex
	got := false
	go func() {
		select {
		case <-th.done:
			mu.Lock()
			if !th.ok && !got {
				cancel()
			}
			mu.Unlock()
		case <-ctx.Done():
		}
	}()
	return func() {
		mu.Lock()
		got = true
		mu.Unlock()
	}
}

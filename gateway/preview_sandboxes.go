package gateway

import (
	"context"
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway/preview"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// previewSandboxes is what the gateway tells its previews of sandboxes:
// the same lookups, cached supervisors and wakes as the API routes.
type previewSandboxes struct{ s *Server }

func upstreamOf(t target) preview.Upstream {
	return preview.Upstream{Addr: t.addr, Route: t.route, Container: t.container, Auth: t.auth}
}

// Describe looks the sandbox up, and drops its cached supervisor when the
// workflow no longer runs that boot (forgetStaleTarget).
func (p previewSandboxes) Describe(ctx context.Context, name string) (contract.View, error) {
	d, err := p.s.describe(ctx, name)
	if err != nil {
		return contract.View{}, err
	}
	p.s.forgetStaleTarget(name, d.view)
	return d.view, nil
}

func (p previewSandboxes) Resolve(ctx context.Context, name string, wake bool) (preview.Upstream, error) {
	t, err := p.s.resolve(ctx, name, wake, "preview")
	if err != nil {
		return preview.Upstream{}, err
	}
	return upstreamOf(t), nil
}

func (p previewSandboxes) Cached(name string) (preview.Upstream, bool) {
	t, ok := p.s.targets.get(name)
	if !ok || !t.trusted(time.Now()) {
		return preview.Upstream{}, false
	}
	return upstreamOf(t), true
}

func (p previewSandboxes) Forget(name string) { p.s.targets.drop(name) }

func (p previewSandboxes) ServiceStates(ctx context.Context, name string) map[string]api.ServiceStatus {
	return p.s.serviceStates(ctx, name)
}

// touchTimeout bounds one activity touch.
const touchTimeout = 3 * time.Second

// Touch tells a running sandbox's supervisor that its preview is in use
// (gateway/preview/activity.go), through the same target and client as
// the proxied API routes. Failures are only logged: a missed touch costs
// at most an early sleep, which the next request undoes.
func (p previewSandboxes) Touch(name string, hold time.Duration) {
	s := p.s
	ctx, cancel := context.WithTimeout(context.Background(), touchTimeout)
	defer cancel()
	t, err := s.resolve(ctx, name, false, "preview") // never wakes: only a running sandbox's traffic counts
	if err != nil {
		s.log.Debug("preview activity not recorded", sandboxlog.Of(name, ""), zap.Error(err))
		return
	}
	sent := time.Now()
	err = s.supervisor(t).Hold(ctx, hold)
	var se *supervisorapi.Error
	switch {
	case err == nil:
		s.targets.contacted(name, t.bootID, sent)
	case errors.As(err, &se):
		if se.Status == http.StatusUnauthorized {
			s.targets.drop(name) // another boot answers there
		}
		s.log.Debug("preview activity refused", sandboxlog.Of(name, ""), zap.Int("status", se.Status))
	default:
		s.targets.drop(name)
		s.log.Debug("preview activity not recorded", sandboxlog.Of(name, ""), zap.Error(err))
	}
}

package gateway

import (
	"context"
	"net/http"
	"strings"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/tokens"
)

// previewCaller is the API credential a path-form preview request carries,
// if it reaches the sandbox: the admin token, or a scoped token with read
// or exec on it. Read is enough because a reader may list the ports, and
// with them a private port's token; exec already reaches the port from
// inside. Anything else (no header, a wrong, expired or revoked token, one
// out of reach, a store that cannot answer) is not a caller, and the
// request goes on as one without a credential: the uniform 404 unless it
// holds the port's token, so a token learns nothing of sandboxes outside
// its reach.
func (s *Server) previewCaller(r *http.Request, name string) (principal, bool) {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || got == "" {
		return principal{}, false
	}
	if s.tokenMatches(got) {
		return principal{set: true}, true
	}
	if s.tokens == nil || !tokens.IsScoped(got) {
		return principal{}, false
	}
	rec, err := s.tokens.Authenticate(r.Context(), got)
	if err != nil {
		return principal{}, false
	}
	p := principal{set: true, token: rec}
	if !p.covers(api.ScopeRead, name) && !p.covers(api.ScopeExec, name) {
		return principal{}, false
	}
	return p, true
}

// Caller is the path form's API credential (previewCaller) as the actor of
// what the preview request causes.
func (p previewSandboxes) Caller(ctx context.Context, r *http.Request, name string) (context.Context, bool) {
	who, ok := p.s.previewCaller(r, name)
	if !ok {
		return ctx, false
	}
	return withPrincipal(ctx, who), true
}

// Visitor is a visit without an API credential: no rights, but a wake it
// causes names the preview's port.
func (previewSandboxes) Visitor(ctx context.Context, port int) context.Context {
	return withPrincipal(ctx, principal{preview: port})
}

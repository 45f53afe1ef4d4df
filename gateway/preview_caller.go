package gateway

import (
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

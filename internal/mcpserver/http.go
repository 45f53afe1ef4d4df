package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where Handler serves MCP's streamable HTTP transport.
const HTTPPath = "/mcp"

// sessionIdle is how long an HTTP session may go without a request before
// the server forgets it (a client that vanished without closing it).
const sessionIdle = time.Hour

// Handler serves s over MCP's streamable HTTP transport at HTTPPath, only
// to requests with "Authorization: Bearer <token>". The server acts with
// the gateway's own token, so anyone it served could run anything in any
// sandbox: it never serves without one. Requests from another site's
// pages are refused as well (a browser cannot send the token anyway), and
// the SDK refuses a loopback request naming a foreign host (DNS
// rebinding).
func Handler(s *mcp.Server, token string) (http.Handler, error) {
	if token == "" {
		return nil, errors.New("an MCP token is needed to serve over HTTP")
	}
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{SessionTimeout: sessionIdle})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, http.NewCrossOriginProtection().Handler(
		auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(h)))
	return mux, nil
}

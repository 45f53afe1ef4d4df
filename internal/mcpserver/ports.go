package mcpserver

import (
	"context"
	"net/url"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type exposeIn struct {
	Sandbox string `json:"sandbox"`
	Port    int    `json:"port" jsonschema:"the TCP port a server in the sandbox listens on"`
	Public  bool   `json:"public,omitempty" jsonschema:"anyone with the URL may open it (default: the URL carries a token)"`
}

type exposeOut struct {
	Port int `json:"port"`
	// URL opens the preview in a browser; a private port's carries its token.
	URL     string `json:"url" jsonschema:"the preview URL to open (a private port's includes its token)"`
	PathURL string `json:"pathUrl" jsonschema:"the same by path, for HTTP clients that cannot use the URL's host name: send the X-Berth-Preview-Token header (a private port) or the gateway's bearer token; browsers use url"`
	Public  bool   `json:"public"`
	Token   string `json:"token,omitempty" jsonschema:"a private port's token (also the X-Berth-Preview-Token header)"`
}

func (b *berth) addPortTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "expose_port", Annotations: idempotent,
		Description: "Expose a port of a sandbox as a preview URL (HTTP and WebSocket). Opening the URL wakes the sandbox " +
			"and keeps it awake while used; a server must listen on the port in the sandbox (start it with start_process). " +
			"Exposing an exposed port again gives it a new token.",
		InputSchema: schemaFor[exposeIn](func(p map[string]*jsonschema.Schema) { bounded(p["port"], 1, 65535, 0) }),
	}, b.expose)
}

func (b *berth) expose(ctx context.Context, _ *mcp.CallToolRequest, in exposeIn) (*mcp.CallToolResult, exposeOut, error) {
	p, err := b.c.Expose(ctx, in.Sandbox, in.Port, in.Public)
	if err != nil {
		return nil, exposeOut{}, describe(err)
	}
	out := exposeOut{Port: p.Port, URL: p.URL, PathURL: p.PathURL, Public: p.Public, Token: p.Token}
	if !p.Public && p.Token != "" {
		// The gateway trades the token for a cookie and drops it from the address.
		// The path form, on the API's origin, takes header credentials only.
		out.URL += "?berth_token=" + url.QueryEscape(p.Token)
	}
	return nil, out, nil
}

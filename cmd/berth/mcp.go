package main

// berth mcp: Berth's tools for MCP clients (internal/mcpserver), over
// stdio or streamable HTTP.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/berthdev/berth/internal/mcpserver"
)

const mcpLong = `Serve Berth's tools (create, run commands, files, logs, preview URLs) to
MCP clients such as coding assistants, acting on the gateway found as for
every other verb (BERTH_URL and BERTH_TOKEN, or the client.json of 'berth dev').

By default it speaks MCP over stdin and stdout: an MCP client starts it as
a command. With --http it serves MCP's streamable HTTP transport at
http://LISTEN/mcp instead, on loopback unless --listen says otherwise. Over
HTTP every request must carry "Authorization: Bearer TOKEN", TOKEN being
$BERTH_MCP_TOKEN, or one made at start and printed on stderr: whoever
reaches the server acts with the gateway's token.`

func mcpCmd(g *globals) *cobra.Command {
	var httpMode bool
	var listen string
	cmd := &cobra.Command{
		Use: "mcp [--http [--listen ADDR]]", Short: "Serve Berth's tools over the Model Context Protocol (stdio or HTTP)",
		Long: mcpLong, Args: cobra.NoArgs,
		Example: "  berth mcp                        # an MCP client runs this\n" +
			"  BERTH_MCP_TOKEN=$(openssl rand -hex 16) berth mcp --http --listen 127.0.0.1:8765",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("listen") && !httpMode {
				return usageError{errors.New("--listen needs --http (without it, berth mcp speaks over stdin and stdout)")}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			srv := mcpserver.New(c, version)
			if !httpMode {
				err := srv.Run(cmd.Context(), &mcp.StdioTransport{})
				if errors.Is(err, context.Canceled) {
					return nil
				}
				return err
			}
			return serveMCPHTTP(cmd.Context(), srv, listen)
		},
	}
	cmd.Flags().BoolVar(&httpMode, "http", false, "serve streamable HTTP instead of stdio")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8765", "address to serve HTTP on (with --http)")
	return cmd
}

// serveMCPHTTP serves srv at http://listen/mcp until ctx ends.
func serveMCPHTTP(ctx context.Context, srv *mcp.Server, listen string) error {
	token := os.Getenv("BERTH_MCP_TOKEN")
	made := token == ""
	if made {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		token = hex.EncodeToString(b)
	}
	h, err := mcpserver.Handler(srv, token)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	fmt.Fprintf(os.Stderr, "berth mcp: serving MCP at http://%s%s\n", addr, mcpserver.HTTPPath)
	if made {
		fmt.Fprintf(os.Stderr, "berth mcp: clients send Authorization: Bearer %s (set BERTH_MCP_TOKEN to choose it)\n", token)
	}
	if !addr.IP.IsLoopback() {
		fmt.Fprintln(os.Stderr, "berth mcp: warning: not on loopback, and plain HTTP: the token crosses the network in clear; put TLS in front")
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

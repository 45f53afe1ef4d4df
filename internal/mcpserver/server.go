// Package mcpserver serves Berth over the Model Context Protocol: tools
// that drive sandboxes (lifecycle, commands, background processes and
// their logs, files, preview URLs) and resources for a sandbox's events
// and a process's output. It is a client of a gateway through the Go SDK
// (package client), so it holds the gateway's bearer token: over HTTP,
// Handler puts a token of its own in front of it.
package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/client"
)

// instructions tell a model what the server is for and how its tools fit
// together; MCP clients show them to the model at the start of a session.
const instructions = `Berth runs durable sandboxes: Linux containers whose /workspace survives sleep and restarts.
Create one with create_sandbox (a name is claimed for good: a destroyed name cannot be reused),
then run_command runs a command and returns its output; it boots a sleeping sandbox first.
For long-running programs use start_process, then read_logs with the cursor it returns to read
more output. Files: write_file, read_file, list_files (relative paths are under /workspace).
expose_port gives a preview URL for a server listening in the sandbox.
Errors carry the API's code and a hint on what to do next.`

// New returns an MCP server whose tools and resources call the gateway
// through c. version is the server's version as reported to clients.
func New(c *client.Client, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "berth", Title: "Berth sandboxes", Version: version},
		&mcp.ServerOptions{Instructions: instructions})
	b := &berth{c: c}
	b.addSandboxTools(s)
	b.addProcessTools(s)
	b.addFileTools(s)
	b.addPortTools(s)
	b.addResources(s)
	return s
}

// berth holds what every tool and resource handler needs.
type berth struct {
	c *client.Client
}

package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/client"
)

// Resource templates: a sandbox's events and a process's output, read as
// they are at the time of the read.
const (
	eventsTemplate = "berth://sandboxes/{name}/events"
	logsTemplate   = "berth://sandboxes/{name}/processes/{id}/logs"
	// maxEvents is how many of a sandbox's newest events a read returns.
	maxEvents = 1000
	// maxLogBytes is how much of a process's newest output a read returns.
	maxLogBytes = 1 << 20
)

func eventsURI(name string) string { return "berth://sandboxes/" + url.PathEscape(name) + "/events" }

func logsURI(name, id string) string {
	return "berth://sandboxes/" + url.PathEscape(name) + "/processes/" + url.PathEscape(id) + "/logs"
}

func (b *berth) addResources(s *mcp.Server) {
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "sandbox-events", Title: "Sandbox events",
		URITemplate: eventsTemplate, MIMEType: "application/x-ndjson",
		Description: "The sandbox's life from its workflow history (created, started, slept, backups...), one JSON event a line, " +
			"the newest 1000."}, b.readEvents)
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "process-logs", Title: "Process output",
		URITemplate: logsTemplate, MIMEType: "text/plain",
		Description: "A process's stdout and stderr as written so far (the newest 1 MiB), then its exit status once it exited. " +
			"start_process returns this URI."}, b.readProcessLogs)
}

// uriParts are the path segments of a berth://sandboxes/... URI after
// "sandboxes", unescaped; nil if uri is not one.
func uriParts(uri string) []string {
	rest, ok := strings.CutPrefix(uri, "berth://sandboxes/")
	if !ok {
		return nil
	}
	parts := strings.Split(rest, "/")
	for i, p := range parts {
		var err error
		if parts[i], err = url.PathUnescape(p); err != nil || parts[i] == "" {
			return nil
		}
	}
	return parts
}

func (b *berth) readEvents(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	parts := uriParts(uri)
	if len(parts) != 2 || parts[1] != "events" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var lines [][]byte
	for ev, err := range b.c.Events(ctx, parts[0], 0, false) {
		if err != nil {
			return nil, resourceError(uri, err)
		}
		line, err := json.Marshal(ev)
		if err != nil {
			return nil, resourceError(uri, err)
		}
		if lines = append(lines, line); len(lines) > maxEvents {
			lines = lines[1:]
		}
	}
	var buf bytes.Buffer
	for _, l := range lines {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/x-ndjson", Text: buf.String()}}}, nil
}

func (b *berth) readProcessLogs(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	parts := uriParts(uri)
	if len(parts) != 4 || parts[1] != "processes" || parts[3] != "logs" {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	p := b.c.Sandbox(parts[0]).Process(parts[2])
	var out []byte
	var exit *client.ExitStatus
	for ev, err := range p.Logs(ctx, "", true, false) {
		if err != nil {
			return nil, resourceError(uri, err)
		}
		switch ev.Type {
		case "stdout", "stderr":
			out = append(out, ev.Data...)
			if len(out) > maxLogBytes {
				out = out[len(out)-maxLogBytes:]
			}
		case "exit":
			exit = ev.Exit
		}
	}
	text := text(out)
	if exit != nil {
		b, _ := json.Marshal(exit)
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		text += "[exit " + string(b) + "]\n"
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}}, nil
}

package mcptests

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// call calls a tool that must succeed and decodes its structured result
// into out. Every call and an abbreviation of its result go to the test
// log, which reads as a transcript of the session.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	res := callRaw(t, ctx, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s: tool error: %s", tool, textOf(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
}

// callErr calls a tool that must fail and returns the error it reports:
// the API's code, message and hint.
func callErr(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) toolError {
	t.Helper()
	res := callRaw(t, ctx, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s succeeded, want a tool error: %s", tool, textOf(res))
	}
	var e struct{ Error toolError }
	if err := json.Unmarshal([]byte(textOf(res)), &e); err != nil || e.Error.Code == "" {
		// Not one of ours: the SDK's own refusal (schema validation).
		return toolError{Message: textOf(res)}
	}
	return e.Error
}

type toolError struct {
	Code, Message, Hint string
	Retryable           bool
}

func callRaw(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	a, _ := json.Marshal(args)
	t.Logf("-> tools/call %s %s", tool, abbrev(string(a)))
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	mark := "<-"
	if res.IsError {
		mark = "<- isError"
	}
	t.Logf("%s %s", mark, abbrev(textOf(res)))
	return res
}

// textOf is a result's text content.
func textOf(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func abbrev(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

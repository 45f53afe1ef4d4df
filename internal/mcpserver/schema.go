package mcpserver

import (
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/api"
)

// sandboxNamePattern is api.ValidSandboxName's rule as a JSON Schema
// pattern, so a bad name is refused by the tool's schema before any call
// (schema_test.go checks the two agree).
const sandboxNamePattern = `^[a-z0-9][a-z0-9-]{0,62}$`

// schemaFor infers the input schema of T (descriptions from jsonschema
// tags) and lets tweak add what tags cannot say: patterns, bounds,
// defaults. The SDK validates every call's arguments against it and
// applies its defaults.
func schemaFor[T any](tweak func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err) // a programming error in an input type
	}
	if p := s.Properties["sandbox"]; p != nil {
		nameSchema(p)
	}
	if tweak != nil {
		tweak(s.Properties)
	}
	return s
}

// nameSchema constrains a sandbox-name property.
func nameSchema(p *jsonschema.Schema) {
	p.Pattern = sandboxNamePattern
	p.Description = "sandbox name: " + api.SandboxNameRule
}

// argvSchema makes a command property a non-empty array of strings (the
// inferred schema of a slice also allows null).
func argvSchema(p *jsonschema.Schema) {
	p.Types, p.Type, p.MinItems = nil, "array", jsonschema.Ptr(1)
}

// bounded gives an integer property a range and a default.
func bounded(p *jsonschema.Schema, lo, hi, def int) {
	p.Minimum, p.Maximum = jsonschema.Ptr(float64(lo)), jsonschema.Ptr(float64(hi))
	if def != 0 {
		p.Default = []byte(strconv.Itoa(def))
	}
}

// Annotations of the tools: what a client may assume about a call.
var (
	readOnly    = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: jsonschema.Ptr(false)}
	idempotent  = &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: jsonschema.Ptr(false), OpenWorldHint: jsonschema.Ptr(false)}
	destructive = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(false)}
	// Commands in a sandbox may do anything, including reach the internet.
	openWorld = &mcp.ToolAnnotations{DestructiveHint: jsonschema.Ptr(true), OpenWorldHint: jsonschema.Ptr(true)}
)

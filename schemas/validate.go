package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/berthdev/berth/api"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The schema files are the contract for clients in other languages; embedding
// them keeps the Go validator checking exactly what is published.
//
//go:embed envelope.json defs.json events/*.json
var files embed.FS

// FS exposes the JSON Schema files (envelope.json, defs.json, events/*.json),
// e.g. for the gateway to serve them.
func FS() fs.FS { return files }

// baseURL is the $id prefix of every schema file; the files refer to each other
// relatively, so the compiler resolves everything from the embedded copies.
const baseURL = "https://github.com/berthdev/berth/schemas/"

// ErrUnknownType is returned for an event type outside the catalogue.
var ErrUnknownType = errors.New("unknown event type")

// compiled holds the schemas compiled once: the embedded files never change, so
// this is a cache of constants rather than mutable state.
type compiled struct {
	envelope *jsonschema.Schema
	payloads map[string]*jsonschema.Schema
}

var compileOnce = sync.OnceValues(compileAll)

func compileAll() (*compiled, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat() // createdAt must really be a date-time
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("schema %s: %w", p, err)
		}
		return c.AddResource(baseURL+p, doc)
	})
	if err != nil {
		return nil, err
	}
	out := &compiled{payloads: map[string]*jsonschema.Schema{}}
	if out.envelope, err = c.Compile(baseURL + "envelope.json"); err != nil {
		return nil, err
	}
	for _, t := range api.EventTypes() {
		if out.payloads[t], err = c.Compile(baseURL + "events/" + api.ShortEventType(t) + ".json"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Validate checks a whole envelope: its fields and its payload against the
// schema of its type. Errors name the type and the failing location.
func Validate(env api.Event) error {
	if !api.IsKnownEventType(env.Type) {
		return fmt.Errorf("%w %q", ErrUnknownType, env.Type)
	}
	if err := ValidatePayload(env.Type, env.Payload); err != nil {
		return err
	}
	raw, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("envelope %s: %w", env.Type, err)
	}
	return validateJSON(func(c *compiled) *jsonschema.Schema { return c.envelope }, "envelope "+env.Type, raw)
}

// ValidatePayload checks one payload against its type's schema, e.g. before a
// request is turned into an event (history is forever, so check first).
func ValidatePayload(typ string, payload json.RawMessage) error {
	if !api.IsKnownEventType(typ) {
		return fmt.Errorf("%w %q", ErrUnknownType, typ)
	}
	if len(payload) == 0 {
		return fmt.Errorf("payload of %s: missing", typ)
	}
	return validateJSON(func(c *compiled) *jsonschema.Schema { return c.payloads[typ] }, "payload of "+typ, payload)
}

func validateJSON(pick func(*compiled) *jsonschema.Schema, what string, raw []byte) error {
	c, err := compileOnce()
	if err != nil {
		return fmt.Errorf("schemas: compile embedded schemas: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: not JSON: %w", what, err)
	}
	if err := pick(c).Validate(doc); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

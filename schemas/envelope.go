// Package schemas holds the sandbox event catalogue, the event types
// events.iterate.com/sandbox/... that Berth's streams carry: one Go type per
// payload, the envelope every stream carries, and the JSON Schema files that
// describe them (events/*.json). docs/design/events.md says
// how the streams are derived from workflow history.
package schemas

// The envelope (api.Event) and the event type names (api.EventCreated…)
// are the API's, in package api; this package holds the payloads and the
// schemas that validate them.

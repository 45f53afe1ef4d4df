package schemas

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envelopeOf(t *testing.T, typ string, payload any) api.Event {
	t.Helper()
	raw, err := json.Marshal(payload)
	require.NoError(t, err)
	return api.Event{Offset: 1, Type: typ, Payload: raw, CreatedAt: time.Now().UTC(), Path: api.SandboxEventPath("box-1")}
}

func ptr[T any](v T) *T { return &v }

// goodPayloads has one valid payload per event type, built from the Go types so
// the Go structs and the schema files cannot drift apart unnoticed.
func goodPayloads() map[string]any {
	return map[string]any{
		api.EventCreateRequested: CreateRequested{Path: "box-1", InstanceType: "basic", SleepAfter: "10m", KeepAlive: ptr(false),
			Env: map[string]string{"MODE": "production", "TOKEN": `getSecret("openai/key")`}},
		api.EventCreated: Created{Config: SandboxConfig{Name: "box-1", InstanceType: "standard-1", SleepAfter: "1h30m0s",
			Env: map[string]string{"HOME_DIR": "/workspace"}}},
		api.EventStartRequested:    Empty{},
		api.EventStarted:           Empty{},
		api.EventWorkspaceRestored: WorkspaceRestored{BackupID: "b-20240101-1"},
		api.EventSleepRequested:    Empty{},
		api.EventBackupCreated:     BackupCreated{BackupID: "b-20240101-1"},
		api.EventBackupFailed:      BackupFailed{Error: "s3: access denied"},
		api.EventStopped:           Empty{},
		api.EventConfigured:        Configured{Env: map[string]*string{"A": ptr("1"), "GONE": nil}},
		api.EventKillRequested:     Empty{},
		api.EventDestroyRequested:  Empty{},
		api.EventDestroyed:         Empty{},
		api.EventEgressPolicyChanged: EgressPolicyChanged{Policy: api.EgressPolicy{Mode: "allowlist",
			Domains: []string{"api.github.com", "*.pypi.org"}, CIDRs: []string{"203.0.113.0/24"}}},
		api.EventServicesChanged: ServicesChanged{Services: []api.Service{{Name: "web", Argv: []string{"python3", "-m", "http.server"}, Port: 8000, Restart: "always"}}},
		api.EventEgressRefused: EgressRefused{Count: 3, FirstAt: time.Unix(1, 0).UTC(), LastAt: time.Unix(4, 0).UTC(),
			ByKind: RefusalKinds{DNS: 1, HTTP: 2}, First: []EgressRefusal{
				{Kind: "dns", Host: "evil.example", Reason: "name not in the allowlist", Count: 1},
				{Kind: "http", Host: "other.example", Destination: "203.0.113.7:443", Secret: "gh", Reason: `secret "gh" is not bound to host "other.example": the request was not sent`, Count: 2},
			}},
		api.EventPortsChanged: PortsChanged{Ports: []ExposedPort{{Port: 8000, Public: true}, {Port: 3000}}},
		api.EventHostLost: HostLost{Host: "h2", LastSeen: ptr(time.Unix(5, 0).UTC()), Reason: "not seen for 30s",
			NewerDataAtRisk: true, LastBackupID: "b-20240101-1"},
		api.EventWorkspaceRolledBack: WorkspaceRolledBack{LostHost: "h2", BackupID: "b-20240101-1"},
		api.EventImagePulling:        ImagePulling{Image: "127.0.0.1:5000/app@sha256:" + strings.Repeat("ab", 32), BytesDone: 1 << 20, BytesTotal: 100 << 20},
		api.EventStartFailed: StartFailed{Code: "ROLLBACK_NEEDED",
			Error: "host h1 is lost since 2026-01-02T03:04:05Z: pass allowRollback to start from backup b-20240101-1"},
		api.EventDozed:  Dozed{DozeAfter: "30s"},
		api.EventThawed: Thawed{Cause: "exec", DozedMs: 61234},
	}
}

func TestEveryTypeHasASchemaFile(t *testing.T) {
	names := map[string]bool{}
	entries, err := fs.ReadDir(FS(), "events")
	require.NoError(t, err)
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, typ := range api.EventTypes() {
		short := api.ShortEventType(typ)
		require.NotEmpty(t, short, typ)
		assert.True(t, names[short+".json"], "missing events/%s.json", short)
		delete(names, short+".json")
		assert.NotNil(t, NewPayload(typ), typ)
	}
	assert.Empty(t, names, "schema files without an event type")
	assert.Len(t, api.EventTypes(), 23)
}

func TestGoodPayloadsValidate(t *testing.T) {
	good := goodPayloads()
	for _, typ := range api.EventTypes() {
		p, ok := good[typ]
		require.True(t, ok, typ)
		assert.NoError(t, Validate(envelopeOf(t, typ, p)), typ)
	}
	// Optional fields of create-requested may be left out.
	assert.NoError(t, Validate(envelopeOf(t, api.EventCreateRequested, CreateRequested{Path: "b", InstanceType: "lite"})))
	// A sandbox with its own image records the ref and its digest.
	assert.NoError(t, Validate(envelopeOf(t, api.EventCreateRequested, CreateRequested{Path: "b", InstanceType: "lite",
		Image: "python:3.12", ImageDigest: "docker.io/library/python@sha256:" + strings.Repeat("cd", 32)})))
	// A fork's created event names its origin.
	assert.NoError(t, Validate(envelopeOf(t, api.EventCreated, Created{
		Config: SandboxConfig{Name: "b", InstanceType: "lite", SleepAfter: "10m0s"},
		From:   &ForkOrigin{Sandbox: "a", BackupID: "20260101T000000Z-0a1b2c3d"}})))
	// The catalogue stream's path is /sandboxes.
	env := envelopeOf(t, api.EventCreateRequested, CreateRequested{Path: "b", InstanceType: "lite"})
	env.Path = api.CatalogPath
	assert.NoError(t, Validate(env))
}

func TestBadPayloadsFail(t *testing.T) {
	cases := []struct {
		name, typ, payload string
	}{
		{"backup-created without backupId", api.EventBackupCreated, `{}`},
		{"egress-policy-changed without policy", api.EventEgressPolicyChanged, `{}`},
		{"egress-policy-changed bad mode", api.EventEgressPolicyChanged, `{"policy":{"mode":"some"}}`},
		{"services-changed bad restart", api.EventServicesChanged, `{"services":[{"name":"web","argv":["x"],"restart":"never"}]}`},
		{"egress-policy-changed junk", api.EventEgressPolicyChanged, `{"policy":{"mode":"open","x":1}}`},
		{"egress-refused without first", api.EventEgressRefused, `{"count":1,"firstAt":"2026-01-01T00:00:00Z","lastAt":"2026-01-01T00:00:00Z","byKind":{"dns":1}}`},
		{"egress-refused bad kind", api.EventEgressRefused, `{"count":1,"firstAt":"2026-01-01T00:00:00Z","lastAt":"2026-01-01T00:00:00Z","byKind":{"dns":1},"first":[{"kind":"udp","reason":"r","count":1}]}`},
		{"egress-refused a value field", api.EventEgressRefused, `{"count":1,"firstAt":"2026-01-01T00:00:00Z","lastAt":"2026-01-01T00:00:00Z","byKind":{"http":1},"first":[{"kind":"http","reason":"r","count":1,"value":"v"}]}`},
		{"backup-created empty backupId", api.EventBackupCreated, `{"backupId":""}`},
		{"workspace-restored without backupId", api.EventWorkspaceRestored, `{"error":"x"}`},
		{"backup-created number backupId", api.EventBackupCreated, `{"backupId":42}`},
		{"backup-failed without error", api.EventBackupFailed, `{}`},
		{"junk on an empty event", api.EventStarted, `{"junk":true}`},
		{"payload not an object", api.EventStopped, `[]`},
		{"null payload", api.EventDestroyed, `null`},
		{"junk beside backupId", api.EventBackupCreated, `{"backupId":"b","junk":1}`},
		{"created without config", api.EventCreated, `{}`},
		{"created config junk", api.EventCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":false,"x":1}}`},
		{"created bad name", api.EventCreated, `{"config":{"name":"Bad_Name","instanceType":"basic","sleepAfter":"","keepAlive":false}}`},
		{"created keepAlive string", api.EventCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":"yes"}}`},
		{"created bad sleepAfter", api.EventCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"soon","keepAlive":false}}`},
		{"created from without backupId", api.EventCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":false},"from":{"sandbox":"b"}}`},
		{"created from bad sandbox", api.EventCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":false},"from":{"sandbox":"B/x","backupId":"x"}}`},
		{"created from junk", api.EventCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":false},"from":{"sandbox":"b","backupId":"x","y":1}}`},
		{"create-requested without path", api.EventCreateRequested, `{"instanceType":"basic"}`},
		{"create-requested without instanceType", api.EventCreateRequested, `{"path":"a"}`},
		{"create-requested env null value", api.EventCreateRequested, `{"path":"a","instanceType":"basic","env":{"A":null}}`},
		{"create-requested env number", api.EventCreateRequested, `{"path":"a","instanceType":"basic","env":{"A":1}}`},
		{"configured bad key", api.EventConfigured, `{"env":{"1A":"x"}}`},
		{"configured key with =", api.EventConfigured, `{"env":{"A=B":"x"}}`},
		{"configured env not a map", api.EventConfigured, `{"env":"A=1"}`},
		{"configured without env", api.EventConfigured, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidatePayload(c.typ, json.RawMessage(c.payload))
			assert.Error(t, err)
			env := api.Event{Offset: 3, Type: c.typ, Payload: json.RawMessage(c.payload), CreatedAt: time.Now(), Path: "/sandboxes/a"}
			assert.Error(t, Validate(env))
		})
	}
}

func TestBadEnvelopesFail(t *testing.T) {
	good := envelopeOf(t, api.EventStarted, Empty{})
	require.NoError(t, Validate(good))

	unknown := good
	unknown.Type = "events.iterate.com/sandbox/exploded"
	assert.True(t, errors.Is(Validate(unknown), ErrUnknownType))

	zero := good
	zero.Offset = 0
	assert.Error(t, Validate(zero), "offsets start at 1")

	badPath := good
	badPath.Path = "sandboxes/a"
	assert.Error(t, Validate(badPath))

	noPayload := good
	noPayload.Payload = nil
	assert.Error(t, Validate(noPayload))
}

func TestValidationErrorNamesTheProblem(t *testing.T) {
	err := ValidatePayload(api.EventBackupCreated, json.RawMessage(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "backup-created")
	assert.Contains(t, err.Error(), "backupId")
}

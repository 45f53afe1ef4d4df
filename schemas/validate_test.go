package schemas

import (
	"encoding/json"
	"errors"
	"io/fs"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func envelopeOf(t *testing.T, typ string, payload any) Envelope {
	t.Helper()
	raw, err := json.Marshal(payload)
	require.NoError(t, err)
	return Envelope{Offset: 1, Type: typ, Payload: raw, CreatedAt: time.Now().UTC(), Path: SandboxPath("box-1")}
}

func ptr[T any](v T) *T { return &v }

// goodPayloads has one valid payload per event type, built from the Go types so
// the Go structs and the schema files cannot drift apart unnoticed.
func goodPayloads() map[string]any {
	return map[string]any{
		TypeCreateRequested: CreateRequested{Path: "box-1", InstanceType: "basic", SleepAfter: "10m", KeepAlive: ptr(false),
			Env: map[string]string{"MODE": "production", "TOKEN": `getSecret("openai/key")`}},
		TypeCreated: Created{Config: SandboxConfig{Name: "box-1", InstanceType: "standard-1", SleepAfter: "1h30m0s",
			Env: map[string]string{"HOME_DIR": "/workspace"}}},
		TypeStartRequested:    Empty{},
		TypeStarted:           Empty{},
		TypeWorkspaceRestored: WorkspaceRestored{BackupID: "b-20240101-1"},
		TypeSleepRequested:    Empty{},
		TypeBackupCreated:     BackupCreated{BackupID: "b-20240101-1"},
		TypeBackupFailed:      BackupFailed{Error: "s3: access denied"},
		TypeStopped:           Empty{},
		TypeConfigured:        Configured{Env: map[string]*string{"A": ptr("1"), "GONE": nil}},
		TypeKillRequested:     Empty{},
		TypeDestroyRequested:  Empty{},
		TypeDestroyed:         Empty{},
	}
}

func TestEveryTypeHasASchemaFile(t *testing.T) {
	names := map[string]bool{}
	entries, err := fs.ReadDir(FS(), "events")
	require.NoError(t, err)
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, typ := range Types() {
		short := ShortName(typ)
		require.NotEmpty(t, short, typ)
		assert.True(t, names[short+".json"], "missing events/%s.json", short)
		delete(names, short+".json")
		assert.NotNil(t, NewPayload(typ), typ)
	}
	assert.Empty(t, names, "schema files without an event type")
	assert.Len(t, Types(), 13)
}

func TestGoodPayloadsValidate(t *testing.T) {
	good := goodPayloads()
	for _, typ := range Types() {
		p, ok := good[typ]
		require.True(t, ok, typ)
		assert.NoError(t, Validate(envelopeOf(t, typ, p)), typ)
	}
	// Optional fields of create-requested may be left out.
	assert.NoError(t, Validate(envelopeOf(t, TypeCreateRequested, CreateRequested{Path: "b", InstanceType: "lite"})))
	// The catalogue stream's path is /sandboxes.
	env := envelopeOf(t, TypeCreateRequested, CreateRequested{Path: "b", InstanceType: "lite"})
	env.Path = CatalogPath
	assert.NoError(t, Validate(env))
}

func TestBadPayloadsFail(t *testing.T) {
	cases := []struct {
		name, typ, payload string
	}{
		{"backup-created without backupId", TypeBackupCreated, `{}`},
		{"backup-created empty backupId", TypeBackupCreated, `{"backupId":""}`},
		{"workspace-restored without backupId", TypeWorkspaceRestored, `{"error":"x"}`},
		{"backup-created number backupId", TypeBackupCreated, `{"backupId":42}`},
		{"backup-failed without error", TypeBackupFailed, `{}`},
		{"junk on an empty event", TypeStarted, `{"junk":true}`},
		{"payload not an object", TypeStopped, `[]`},
		{"null payload", TypeDestroyed, `null`},
		{"junk beside backupId", TypeBackupCreated, `{"backupId":"b","junk":1}`},
		{"created without config", TypeCreated, `{}`},
		{"created config junk", TypeCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":false,"x":1}}`},
		{"created bad name", TypeCreated, `{"config":{"name":"Bad_Name","instanceType":"basic","sleepAfter":"","keepAlive":false}}`},
		{"created keepAlive string", TypeCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"","keepAlive":"yes"}}`},
		{"created bad sleepAfter", TypeCreated, `{"config":{"name":"a","instanceType":"basic","sleepAfter":"soon","keepAlive":false}}`},
		{"create-requested without path", TypeCreateRequested, `{"instanceType":"basic"}`},
		{"create-requested without instanceType", TypeCreateRequested, `{"path":"a"}`},
		{"create-requested env null value", TypeCreateRequested, `{"path":"a","instanceType":"basic","env":{"A":null}}`},
		{"create-requested env number", TypeCreateRequested, `{"path":"a","instanceType":"basic","env":{"A":1}}`},
		{"configured bad key", TypeConfigured, `{"env":{"1A":"x"}}`},
		{"configured key with =", TypeConfigured, `{"env":{"A=B":"x"}}`},
		{"configured env not a map", TypeConfigured, `{"env":"A=1"}`},
		{"configured without env", TypeConfigured, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidatePayload(c.typ, json.RawMessage(c.payload))
			assert.Error(t, err)
			env := Envelope{Offset: 3, Type: c.typ, Payload: json.RawMessage(c.payload), CreatedAt: time.Now(), Path: "/sandboxes/a"}
			assert.Error(t, Validate(env))
		})
	}
}

func TestBadEnvelopesFail(t *testing.T) {
	good := envelopeOf(t, TypeStarted, Empty{})
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
	err := ValidatePayload(TypeBackupCreated, json.RawMessage(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "backup-created")
	assert.Contains(t, err.Error(), "backupId")
}

package eventlog

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

func readCatalog(t *testing.T, r Reader, after int64) []api.Event {
	t.Helper()
	var out []api.Event
	require.NoError(t, r.Catalog(context.Background(), after, false, func(env api.Event) error {
		out = append(out, env)
		return nil
	}))
	return out
}

func claimedPath(t *testing.T, env api.Event) string {
	t.Helper()
	var p schemas.CreateRequested
	require.NoError(t, json.Unmarshal(env.Payload, &p))
	return p.Path
}

// waitCatalog waits until visibility lists every name.
func waitCatalog(t *testing.T, r Reader, names ...string) []api.Event {
	t.Helper()
	var all []api.Event
	require.Eventually(t, func() bool {
		all = readCatalog(t, r, 0)
		seen := map[string]bool{}
		for _, env := range all {
			seen[claimedPath(t, env)] = true
		}
		for _, n := range names {
			if !seen[n] {
				return false
			}
		}
		return true
	}, 10*time.Second, 50*time.Millisecond)
	return all
}

func TestCatalogClaimOrderAndStableOffsets(t *testing.T) {
	e := env(t)
	names := []string{e.newSandbox(t), e.newSandbox(t), e.newSandbox(t)}
	// A continue-as-new run must not appear as a second claim.
	e.continueAsNew(t, names[0])
	e.send(t, names[0], api.EventStartRequested)
	e.waitOffset(t, names[0], 2)

	before := waitCatalog(t, e.reader, names...)
	index := map[string]int{}
	for i, env := range before {
		assert.Equal(t, int64(i+1), env.Offset)
		assert.Equal(t, api.EventCreateRequested, env.Type)
		assert.Equal(t, api.CatalogPath, env.Path)
		assert.NoError(t, schemas.Validate(env))
		path := claimedPath(t, env)
		_, dup := index[path]
		assert.False(t, dup, "%s listed twice", path)
		index[path] = i
		if i > 0 {
			assert.False(t, env.CreatedAt.Before(before[i-1].CreatedAt), "claim order")
		}
	}
	assert.Less(t, index[names[0]], index[names[1]])
	assert.Less(t, index[names[1]], index[names[2]])

	// Destroying and claiming more never moves an earlier entry.
	e.send(t, names[1], api.EventDestroyed)
	e.waitOffset(t, names[1], 2)
	later := e.newSandbox(t)
	after := waitCatalog(t, e.reader, later)
	require.Greater(t, len(after), len(before))
	for i := range before {
		assert.Equal(t, before[i].Offset, after[i].Offset)
		assert.Equal(t, claimedPath(t, before[i]), claimedPath(t, after[i]))
		assert.True(t, before[i].CreatedAt.Equal(after[i].CreatedAt))
	}
	assert.Equal(t, later, claimedPath(t, after[len(after)-1]))

	// after= resumes exactly.
	tail := readCatalog(t, e.reader, int64(len(before)))
	require.NotEmpty(t, tail)
	assert.Equal(t, int64(len(before)+1), tail[0].Offset)

	// follow=true delivers a new claim.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := collect(func(emit Emit) error { return e.reader.Catalog(ctx, int64(len(after)), true, emit) })
	newest := e.newSandbox(t)
	got := f.next(t, 5*time.Second)
	assert.Equal(t, int64(len(after)+1), got.Offset)
	assert.Equal(t, newest, claimedPath(t, got))
}

package eventlog

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

// TestCatalogCreateRequestedNamesItsActor: the catalogue's create-requested
// carries the actor memo the gateway sets at create, across a
// continue-as-new; a claim without that memo (older sandboxes) names no one.
func TestCatalogCreateRequestedNamesItsActor(t *testing.T) {
	e := env(t)
	who := api.Actor{Kind: api.ActorToken, ID: "00112233aabbccdd", Name: "ci"}
	with := fmt.Sprintf("a%d-%d", time.Now().UnixNano()%1_000_000, e.seq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: WorkflowID(with), TaskQueue: testQueue,
		Memo: map[string]any{SpecMemoKey: schemas.CreateRequested{Path: with, InstanceType: "basic"}, ActorMemoKey: who},
	}, WorkflowType, testSandboxInput{Name: with})
	require.NoError(t, err)
	e.waitOffset(t, with, 1)
	e.continueAsNew(t, with)
	e.send(t, with, api.EventStartRequested)
	e.waitOffset(t, with, 2)
	without := e.newSandbox(t)

	byPath := map[string]api.Event{}
	for _, ev := range waitCatalog(t, e.reader, with, without) {
		byPath[claimedPath(t, ev)] = ev
	}
	require.NotNil(t, byPath[with].Actor, "create-requested of %s names no actor", with)
	assert.Equal(t, who, *byPath[with].Actor)
	assert.NoError(t, schemas.Validate(byPath[with]))
	assert.Nil(t, byPath[without].Actor)
}

package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// claim is one sandbox on the catalogue: its workflow ID, claim time (start of
// the chain's first run) and the create-requested payload from its spec memo.
type claim struct {
	workflowID string
	at         time.Time
	spec       contract.CreateSpec
	actor      *api.Actor // from the actor memo; nil before Berth kept it
}

// Catalog emits the /sandboxes catalogue: the create-requested event of every
// sandbox ever claimed, in claim order (workflow start time, ties broken by
// workflow ID), with offsets 1, 2, 3… by position. Destroyed sandboxes stay as
// open tombstone workflows, so the list only grows and offsets stay put.
// follow=true polls visibility every PollInterval and never ends by itself.
func (r Reader) Catalog(ctx context.Context, after int64, follow bool, emit Emit) error {
	interval := r.PollInterval
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	last := after
	for {
		claims, err := r.claims(ctx)
		if err != nil {
			return err
		}
		for i, c := range claims {
			offset := int64(i + 1)
			if offset <= last {
				continue
			}
			payload, err := json.Marshal(schemas.CreateRequested(c.spec))
			if err != nil {
				return err
			}
			last = offset
			if err := emit(api.Event{
				Offset: offset, Type: api.EventCreateRequested, Payload: payload,
				CreatedAt: c.at.UTC(), Path: api.CatalogPath, Actor: c.actor,
			}); err != nil {
				return err
			}
		}
		if !follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// claims lists every Sandbox workflow run and folds the runs of each chain
// into one claim. Visibility lists each continue-as-new run separately, each
// with its own start time; the earliest is the claim.
func (r Reader) claims(ctx context.Context) ([]claim, error) {
	byID := map[string]*claim{}
	req := &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: r.Namespace,
		Query:     fmt.Sprintf("WorkflowType = '%s'", WorkflowType),
	}
	for {
		resp, err := r.Client.ListWorkflow(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("list sandboxes: %w", err)
		}
		for _, info := range resp.GetExecutions() {
			id := info.GetExecution().GetWorkflowId()
			at := info.GetStartTime().AsTime()
			c := byID[id]
			if c == nil {
				c = &claim{workflowID: id, at: at}
				byID[id] = c
			} else if at.Before(c.at) {
				c.at = at
			}
			// The memo is carried across continue-as-new, so any run has it.
			if p := info.GetMemo().GetFields()[SpecMemoKey]; p != nil && c.spec.Path == "" {
				if err := converter.GetDefaultDataConverter().FromPayload(p, &c.spec); err != nil {
					return nil, fmt.Errorf("decode %s memo of %s: %w", SpecMemoKey, id, err)
				}
			}
			if p := info.GetMemo().GetFields()[ActorMemoKey]; p != nil && c.actor == nil {
				var who api.Actor
				// A memo Berth did not write leaves the claim without an
				// actor rather than failing the whole catalogue.
				if converter.GetDefaultDataConverter().FromPayload(p, &who) == nil && who.Kind != "" {
					c.actor = &who
				}
			}
		}
		if len(resp.GetNextPageToken()) == 0 {
			break
		}
		req.NextPageToken = resp.GetNextPageToken()
	}
	// Retention deletes a chain's first run, and with it the earliest
	// start time visibility knew; the archive kept it.
	var archived map[string]time.Time
	if r.Archive != nil {
		var err error
		if archived, err = archivedClaims(ctx, r.Archive); err != nil {
			return nil, err
		}
	}
	out := make([]claim, 0, len(byID))
	for _, c := range byID {
		if at, ok := archived[strings.TrimPrefix(c.workflowID, WorkflowID(""))]; ok && at.Before(c.at) {
			c.at = at
		}
		if c.spec.Path == "" {
			// Started without a spec (not by Berth): still a claimed name, and
			// leaving it out would shift every later offset.
			c.spec.Path = strings.TrimPrefix(c.workflowID, WorkflowID(""))
		}
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].at.Equal(out[j].at) {
			return out[i].at.Before(out[j].at)
		}
		return out[i].workflowID < out[j].workflowID
	})
	return out, nil
}

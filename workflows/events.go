package workflows

import (
	"time"

	"encoding/json"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
	"github.com/berthdev/berth/workflows/contract"
)

// published is what the search attributes last said, so they are upserted
// only when they change.
type published struct {
	status, host string
}

// recordCreated writes the first events of a sandbox's own stream.
func (s *sandbox) recordCreated(ctx workflow.Context) {
	c := s.st.Config
	s.record(ctx, api.EventCreated, schemas.Created{Config: schemas.SandboxConfig{
		Name: c.Name, InstanceType: c.InstanceType, SleepAfter: c.SleepAfter.String(),
		KeepAlive: c.KeepAlive, DozeAfter: dozeAfterString(c.DozeAfter), Env: c.Env, Image: c.Image, ImageDigest: c.ImageDigest,
	}, From: s.forkOrigin()})
	if len(c.Env) > 0 {
		env := make(map[string]*string, len(c.Env))
		for k, v := range c.Env {
			v := v
			env[k] = &v
		}
		s.record(ctx, api.EventConfigured, schemas.Configured{Env: env})
	}
	s.recordCreatedEgress(ctx)
	s.recordCreatedServices(ctx)
}

// record appends one domain event to the sandbox's stream: a memo upsert,
// which history keeps as a WorkflowPropertiesModified event. The event
// stream is read back from exactly these.
func (s *sandbox) record(ctx workflow.Context, typ string, payload any) {
	raw, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("berth: event %s payload: %v", typ, err))
	}
	env := api.Event{
		Offset: s.st.NextOffset, Type: typ, Payload: raw,
		CreatedAt: workflow.Now(ctx), Path: api.SandboxEventPath(s.st.Config.Name),
		Actor: s.actor(),
	}
	s.st.NextOffset++
	s.st.LastEvent = strings.TrimPrefix(typ, "events.iterate.com/sandbox/")
	s.upsert(ctx, map[string]any{contract.MemoEvent: env, contract.MemoState: s.st.View()})
}

// actor is who the event being recorded names: the cause of the intent
// being applied, or the system for what the workflow records by itself
// (egress refusals, image pulls of a boot it began on its own).
func (s *sandbox) actor() *api.Actor {
	if s.cause != nil {
		return s.cause.actor
	}
	return &contract.System
}

// publish refreshes the state memo and search attributes without an event.
func (s *sandbox) publish(ctx workflow.Context) {
	s.upsert(ctx, map[string]any{contract.MemoState: s.st.View()})
}

func (s *sandbox) upsert(ctx workflow.Context, memo map[string]any) {
	if err := workflow.UpsertMemo(ctx, memo); err != nil {
		panic(fmt.Sprintf("berth: upsert memo: %v", err))
	}
	now := published{status: string(s.st.Status), host: s.st.Host}
	if now != s.published {
		sas := []temporal.SearchAttributeUpdate{contract.SABerthSandbox.ValueSet(s.st.Config.Name), contract.SABerthStatus.ValueSet(now.status),
			contract.SABerthInstanceType.ValueSet(s.st.Config.InstanceType)}
		if now.host != "" {
			sas = append(sas, contract.SABerthHost.ValueSet(now.host))
		}
		if err := workflow.UpsertTypedSearchAttributes(ctx, sas...); err != nil {
			panic(fmt.Sprintf("berth: upsert search attributes: %v", err))
		}
		s.published = now
	}
	// Shown on the workflow's page in the Temporal UI (the SDK answers the
	// UI's metadata query with it; no command, no history event).
	workflow.SetCurrentDetails(ctx, currentDetails(s.st))
}

// currentDetails is the sandbox's status as the Temporal UI shows it, in
// Markdown. A destroyed sandbox's workflow stays open as its name's
// tombstone, which the UI calls Running: the first line says otherwise.
func currentDetails(st *contract.State) string {
	head := fmt.Sprintf("**%s**", st.Status)
	switch st.Status {
	case contract.StatusDestroyed:
		head = "**destroyed**: not running; this workflow stays open only as the tombstone that keeps the name from reuse"
	case contract.StatusRunning:
		if st.Container != nil {
			head += " (boot " + st.Container.BootID + ")"
		}
	}
	host := st.Host
	if host == "" {
		host = "none yet"
	}
	last := st.LastEvent
	if last == "" {
		last = "none"
	}
	return fmt.Sprintf("%s  \n**sandbox:** %s (%s)  \n**last event:** %s  \n**host:** %s",
		head, st.Config.Name, st.Config.InstanceType, last, host)
}

// dozeAfterString is "" when the sandbox never dozes (the field is then
// absent, as in events recorded before dozing existed).
func dozeAfterString(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return d.String()
}

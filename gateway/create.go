package gateway

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/labstack/echo/v4"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/workflows/contract"
)

// checkServices refuses a create's services as PUT .../services/{svc}
// would refuse each, and a name declared twice.
func checkServices(l []api.Service) *api.Error {
	if len(l) > api.MaxServices {
		return badRequest(fmt.Sprintf("services: at most %d per sandbox", api.MaxServices))
	}
	seen := map[string]bool{}
	for i, svc := range l {
		if err := svc.Check(); err != nil {
			return badRequest(fmt.Sprintf("services[%d]: %v", i, err))
		}
		if seen[svc.Name] {
			return badRequest(fmt.Sprintf("services[%d]: %q is declared twice", i, svc.Name))
		}
		seen[svc.Name] = true
	}
	return nil
}

// spec normalises a create request so that two identical creates compare
// equal however they spelled their defaults.
func (s *Server) spec(req api.CreateRequest) (contract.CreateSpec, *api.Error) {
	if err := validName(req.Name); err != nil {
		return contract.CreateSpec{}, err
	}
	if req.InstanceType == "" {
		req.InstanceType = config.DefaultInstanceType
	}
	if _, ok := s.types[req.InstanceType]; !ok {
		return contract.CreateSpec{}, badRequest(fmt.Sprintf("unknown instanceType %q: use one of %v", req.InstanceType, s.types.Names()))
	}
	if err := checkSleepAfter(req.SleepAfter); err != nil {
		return contract.CreateSpec{}, err
	}
	if !req.SleepAfter.Set {
		req.SleepAfter.D = 10 * time.Minute
	}
	if err := checkDozeAfter(req.DozeAfter); err != nil {
		return contract.CreateSpec{}, err
	}
	if !req.DozeAfter.Set {
		req.DozeAfter.D = s.dozeAfter
	}
	if err := checkEnv(req.Env, false); err != nil {
		return contract.CreateSpec{}, err
	}
	if req.Image != "" {
		if req.From != nil {
			return contract.CreateSpec{}, badRequest("image: a fork runs its origin's image; leave image out")
		}
		if err := s.checkImage(req.Image); err != nil {
			return contract.CreateSpec{}, err
		}
	}
	keep := req.KeepAlive != nil && *req.KeepAlive
	spec := contract.CreateSpec{Path: req.Name, InstanceType: req.InstanceType,
		SleepAfter: req.SleepAfter.D.String(), KeepAlive: &keep, Image: req.Image}
	if req.DozeAfter.D > 0 {
		spec.DozeAfter = req.DozeAfter.D.String()
	}
	if len(req.Env) > 0 {
		spec.Env = map[string]string{}
		for k, v := range req.Env {
			spec.Env[k] = *v
		}
	}
	return spec, nil
}

// create claims the name: 201 for a new claim, 200 when an identical create
// already claimed it, 409 for a different config, 410 once destroyed.
func (s *Server) create(c echo.Context) (err error) {
	var req api.CreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	// A scoped token's reach is checked before anything is looked up.
	if aerr := s.allow(c, api.ScopeLifecycle, req.Name); aerr != nil {
		return aerr
	}
	if req.From != nil {
		// A fork is a create from another sandbox's workspace: counted
		// as the lifecycle operation it is, beside its request.
		defer func(start time.Time) { metrics.Lifecycle(metrics.OpFork, "", start, err) }(time.Now())
		if aerr := s.allow(c, api.ScopeFiles, req.From.Sandbox); aerr != nil {
			return aerr
		}
	}
	spec, aerr := s.spec(req)
	if aerr != nil {
		return aerr
	}
	egress, aerr := parsePolicy(req.Egress)
	if aerr != nil {
		return aerr
	}
	if aerr := checkServices(req.Services); aerr != nil {
		return aerr
	}
	memo := map[string]any{contract.MemoSpec: spec}
	if egress != nil {
		memo[contract.MemoSpecEgress] = egress
	}
	if len(req.Services) > 0 {
		memo[contract.MemoSpecServices] = req.Services
	}
	ctx := c.Request().Context()
	if who := principalOf(ctx).actor(); who != nil {
		memo[contract.MemoSpecActor] = who // the catalogue's create-requested names it
	}
	var origin *contract.ForkOrigin
	copied := false
	if req.From != nil {
		if aerr := checkFrom(*req.From, spec.Path); aerr != nil {
			return aerr
		}
		// A claimed name answers as any create does, before anything is
		// copied into its backups.
		d, err := s.describe(ctx, spec.Path)
		if err == nil {
			return s.answerClaimed(c, d, spec, egress, req)
		}
		if ae, ok := err.(*api.Error); !ok || ae.Code != api.CodeSandboxNotFound {
			return err
		}
		o, cp, err := s.resolveFork(ctx, *req.From, spec.Path)
		if err != nil {
			return err
		}
		origin, copied = &o.ForkOrigin, cp
		memo[contract.MemoSpecFrom] = forkMemo{From: *req.From, BackupID: o.BackupID}
		spec.Image, spec.ImageDigest = o.Image, o.ImageDigest // a fork runs its origin's image
		memo[contract.MemoSpec] = spec
	} else if spec.Image != "" {
		// Before the claim: an image no registry knows claims no name.
		digest, err := s.resolveImage(ctx, spec.Image)
		if err != nil {
			return err
		}
		spec.ImageDigest = digest
		memo[contract.MemoSpec] = spec
	}
	err = s.callTemporal(ctx, func(ctx context.Context) error {
		_, err := s.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: contract.WorkflowID(spec.Path), TaskQueue: contract.SharedQueue,
			WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
			WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
			// Without this the SDK quietly returns the existing run.
			WorkflowExecutionErrorWhenAlreadyStarted: true,
			Memo:                                     memo,
			// The Temporal UI shows these above the history; the status
			// itself changes, so it lives in the workflow's current details.
			StaticSummary: uiSummary(spec.Path, spec.InstanceType),
			StaticDetails: uiDetails,
			TypedSearchAttributes: temporal.NewSearchAttributes(
				contract.SABerthSandbox.ValueSet(spec.Path),
				contract.SABerthStatus.ValueSet(string(contract.StatusCreated)),
				contract.SABerthInstanceType.ValueSet(spec.InstanceType)),
		}, contract.WorkflowType, contract.Input{Spec: (*contract.CreateSpec)(&spec), ContinueAsNewAfter: s.continueAsNewAfter, Egress: egress, From: origin,
			Services: req.Services, Start: req.Start, Actor: principalOf(ctx).actor()})
		return err
	})
	if err == nil {
		s.preview.Created(spec.Path) // probed before it existed
		v := viewFromSpec(spec, egress, time.Now())
		v.Services = req.Services
		if req.Start {
			v.Status = contract.StatusStarting
		}
		if origin != nil {
			v.LastBackupID = origin.BackupID
		}
		return c.JSON(http.StatusCreated, publicView(v))
	}
	if !temporal.IsWorkflowExecutionAlreadyStartedError(err) {
		return fromTemporal(err, spec.Path)
	}
	d, err := s.describe(ctx, spec.Path)
	if err != nil {
		return err
	}
	if copied && d.forkBackupID != origin.BackupID {
		// Another create won the name meanwhile: the copy is not its.
		dropCopy(ctx, s.backups, spec.Path, origin.BackupID)
	}
	return s.answerClaimed(c, d, spec, egress, req)
}

// answerClaimed answers a create whose name is already claimed: 200 when
// the claim was an identical create, 409 for another config, 410 once
// destroyed.
func (s *Server) answerClaimed(c echo.Context, d described, spec contract.CreateSpec, egress *policy.Policy, req api.CreateRequest) error {
	// The same ref is the same create, whatever it resolves to now: the
	// sandbox keeps the digest of its own create.
	spec.ImageDigest = d.spec.ImageDigest
	switch {
	case d.view.Status == contract.StatusDestroyed:
		return api.NewError(http.StatusGone, api.CodeSandboxDestroyed, fmt.Sprintf("sandbox %q was destroyed; names are never reused, pick a new one", spec.Path))
	case !reflect.DeepEqual(d.spec, spec) || !reflect.DeepEqual(d.egress, egress) || !reflect.DeepEqual(d.from, req.From) ||
		!sameServices(d.services, req.Services):
		e := api.NewError(http.StatusConflict, api.CodeNameConflict, fmt.Sprintf("sandbox %q already exists with a different configuration", spec.Path))
		return e
	}
	return c.JSON(http.StatusOK, publicView(d.view))
}

func viewFromSpec(spec contract.CreateSpec, egress *policy.Policy, at time.Time) contract.View {
	env := spec.Env
	if env == nil {
		env = map[string]string{}
	}
	d, _ := time.ParseDuration(spec.SleepAfter)
	return contract.View{Name: spec.Path, InstanceType: spec.InstanceType, Status: contract.StatusCreated,
		SleepAfter: d.String(), KeepAlive: spec.KeepAlive != nil && *spec.KeepAlive, Env: env,
		Image: spec.Image, ImageDigest: spec.ImageDigest, DozeAfter: spec.DozeAfter,
		Egress: egress, CreatedAt: at, UpdatedAt: at}
}

// sameServices compares a create's services with a claim's (nil and empty
// are the same: no services).
func sameServices(a, b []api.Service) bool {
	return (len(a) == 0 && len(b) == 0) || reflect.DeepEqual(a, b)
}

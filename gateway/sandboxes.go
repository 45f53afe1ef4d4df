package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/labstack/echo/v4"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/workflows/contract"
)

// publicView is the API form of the workflow's view.
func publicView(v contract.View) api.Sandbox {
	return api.Sandbox{Name: v.Name, InstanceType: v.InstanceType, Status: string(v.Status), SleepAfter: v.SleepAfter,
		KeepAlive: v.KeepAlive, DozeAfter: v.DozeAfter, Env: v.Env, Image: v.Image, ImageDigest: v.ImageDigest, LastBackupID: v.LastBackupID, Host: v.Host,
		LastEvent: v.LastEvent, HostLost: publicHostLoss(v.HostLost), Egress: wirePolicy(v.Egress),
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

func publicHostLoss(l *contract.HostLoss) *api.HostLoss {
	if l == nil {
		return nil
	}
	return &api.HostLoss{Host: l.Host, Since: l.Since, LastSeen: l.LastSeen, Reason: l.Reason, NewerDataAtRisk: l.NewerDataAtRisk}
}

type described struct {
	spec   contract.CreateSpec
	egress *policy.Policy // the create's, nil for the default
	from   *api.ForkFrom  // a fork's request, nil for none
	// services are the create's, nil for none.
	services []api.Service
	view     contract.View
	// forkBackupID is the origin backup a fork started from.
	forkBackupID string
}

// describe reads a sandbox from its workflow's memo: no worker needed.
func (s *Server) describe(ctx context.Context, name string) (described, error) {
	var resp *workflowservice.DescribeWorkflowExecutionResponse
	err := s.callTemporal(ctx, func(ctx context.Context) (err error) {
		resp, err = s.temporal.DescribeWorkflowExecution(ctx, contract.WorkflowID(name), "")
		return err
	})
	if err != nil {
		return described{}, fromTemporal(err, name)
	}
	info := resp.GetWorkflowExecutionInfo()
	d, _ := fromMemo(info.GetMemo().GetFields(), info.GetStartTime().AsTime())
	return d, nil
}

// fromMemo reads a sandbox from its workflow's memo: the current view, or
// (before the first workflow task ran) the view the create spec implies.
func fromMemo(fields map[string]*commonpb.Payload, started time.Time) (described, bool) {
	dc := converter.GetDefaultDataConverter()
	var d described
	p, hasSpec := fields[contract.MemoSpec]
	if hasSpec {
		hasSpec = dc.FromPayload(p, &d.spec) == nil
	}
	if p, ok := fields[contract.MemoSpecEgress]; ok {
		var e policy.Policy
		if dc.FromPayload(p, &e) == nil {
			d.egress = &e
		}
	}
	if p, ok := fields[contract.MemoSpecServices]; ok {
		_ = dc.FromPayload(p, &d.services)
	}
	if p, ok := fields[contract.MemoSpecFrom]; ok {
		var f forkMemo
		if dc.FromPayload(p, &f) == nil {
			d.from, d.forkBackupID = &f.From, f.BackupID
		}
	}
	if v, ok, err := contract.ViewFromMemo(fields); ok && err == nil {
		d.view = v
		return d, true
	}
	d.view = viewFromSpec(d.spec, d.egress, started)
	d.view.Services = d.services
	return d, hasSpec
}

func (s *Server) get(c echo.Context) error {
	name := c.Param("name")
	d, err := s.describe(c.Request().Context(), name)
	if err != nil {
		return err
	}
	out := publicView(d.view)
	out.Ports = s.exposedPorts(c, name, d.view)
	return c.JSON(http.StatusOK, out)
}

var listableStatus = map[string]bool{"created": true, "starting": true, "running": true, "dozing": true, "stopping": true,
	"stopped": true, "destroying": true, "destroyed": true}

// list reads Temporal visibility; destroyed sandboxes are listed only when
// asked for with ?status=destroyed.
func (s *Server) list(c echo.Context) error {
	status := c.QueryParam("status")
	query := fmt.Sprintf("WorkflowType = '%s' AND BerthStatus != 'destroyed'", contract.WorkflowType)
	if status != "" {
		if !listableStatus[status] {
			return badRequest(fmt.Sprintf("unknown status %q", status))
		}
		query = fmt.Sprintf("WorkflowType = '%s' AND BerthStatus = '%s'", contract.WorkflowType, status)
	}
	page, aerr := s.parsePage(c, query)
	if aerr != nil {
		return aerr
	}
	out := []api.Sandbox{}
	who := principalOf(c.Request().Context())
	token := page.token
	for {
		var resp *workflowservice.ListWorkflowExecutionsResponse
		err := s.callTemporal(c.Request().Context(), func(ctx context.Context) (err error) {
			resp, err = s.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
				Namespace: s.namespace, Query: query, NextPageToken: token, PageSize: page.size()})
			return err
		})
		if err != nil {
			return fromTemporal(err, "")
		}
		for _, info := range resp.GetExecutions() {
			if info.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				continue // a closed run of a continued-as-new sandbox
			}
			if d, ok := fromMemo(info.GetMemo().GetFields(), info.GetStartTime().AsTime()); ok && who.coversSandbox(d.view.Name) {
				out = append(out, publicView(d.view))
			}
		}
		token = resp.GetNextPageToken()
		if page.limit > 0 {
			// One page, in Temporal's order (the latest started first).
			if len(token) > 0 {
				c.Response().Header().Set(nextPageHeader, s.nextPageToken(query, token))
			}
			return c.JSON(http.StatusOK, out)
		}
		if len(token) == 0 {
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return c.JSON(http.StatusOK, out)
}

// lifecycle handles start, sleep, kill and destroy.
func (s *Server) lifecycle(op contract.Op) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		prev, cached := s.targets.get(name)
		s.targets.drop(name) // the container may change under this op
		v, err := s.update(c.Request().Context(), name, op)
		if err != nil {
			// Without Temporal the op cannot change the container, and
			// nothing can look the supervisor up again: keep the hot path
			// going (a supervisor that went away is dropped when it stops
			// answering).
			if ae, ok := err.(*api.Error); ok && ae.Code == api.CodeTemporalUnavailable && cached {
				s.targets.put(name, prev)
			}
			return err
		}
		return c.JSON(http.StatusOK, publicView(v))
	}
}

func (s *Server) patch(c echo.Context) error {
	name := c.Param("name")
	var req api.PatchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if !req.SleepAfter.Set && req.KeepAlive == nil && !req.DozeAfter.Set {
		return badRequest("nothing to change: give sleepAfter, dozeAfter and/or keepAlive")
	}
	if err := checkSleepAfter(req.SleepAfter); err != nil {
		return err
	}
	if err := checkDozeAfter(req.DozeAfter); err != nil {
		return err
	}
	p := contract.PatchRequest{KeepAlive: req.KeepAlive}
	if req.DozeAfter.Set {
		p.DozeAfter = &req.DozeAfter.D
	}
	if req.SleepAfter.Set {
		p.SleepAfter = &req.SleepAfter.D
	}
	v, err := s.update(c.Request().Context(), name, contract.OpPatch, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, publicView(v))
}

func (s *Server) setEnv(c echo.Context) error {
	name := c.Param("name")
	var req api.EnvChange
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if len(req.Env) == 0 {
		return badRequest(`env must name at least one variable: {"env": {"KEY": "value" | null}}`)
	}
	if err := checkEnv(req.Env, true); err != nil {
		return err
	}
	v, err := s.update(c.Request().Context(), name, contract.OpConfigure, contract.ConfigureRequest{Env: req.Env})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, publicView(v))
}

// start boots a sandbox, restoring its newest backup, or the one the body
// names (the way back when the newest one is corrupt). A named backup is
// checked here, so a typo is a 4xx before anything changes. allowRollback
// consents to a workspace older than the one on a lost host.
func (s *Server) start(c echo.Context) error {
	name := c.Param("name")
	var req api.StartRequest
	if err := decodeOptionalJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	var start contract.StartRequest
	start.AllowRollback = req.AllowRollback
	if req.BackupID != "" {
		if err := validBackupID(req.BackupID); err != nil {
			return err
		}
		if _, err := s.describe(ctx, name); err != nil {
			return err
		}
		m, err := s.namedBackup(ctx, name, req.BackupID)
		if err != nil {
			return err
		}
		start.BackupID, start.Size = m.BackupID, contract.BackupSize{Bytes: m.Bytes, Files: m.Files}
	}
	var args []any
	if start != (contract.StartRequest{}) {
		// A start without options sends none, as every caller did before
		// they existed.
		args = append(args, start)
	}
	s.targets.drop(name) // the container may change under this op
	v, err := s.update(ctx, name, contract.OpStart, args...)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, publicView(v))
}

// namedBackup reads the manifest of a backup a caller asked to restore.
func (s *Server) namedBackup(ctx context.Context, name, id string) (backup.Manifest, error) {
	m, err := backup.ReadManifest(ctx, s.backups, name, id)
	switch {
	case errors.Is(err, backup.ErrNoBackup):
		return m, api.NewError(http.StatusNotFound, api.CodeBackupNotFound,
			fmt.Sprintf("sandbox %q has no backup %s: `berth backups %s` lists them", name, id, name))
	case errors.Is(err, backup.ErrCorrupt):
		return m, restoreFailed(fmt.Sprintf("backup %s cannot be read: %v", id, err), id)
	case err != nil:
		return m, unavailableStore(err)
	}
	bad, err := backup.IsBad(ctx, s.backups, name, id)
	switch {
	case err != nil:
		return m, unavailableStore(err)
	case bad:
		return m, restoreFailed(fmt.Sprintf("backup %s is marked bad: it failed to restore before; name another one", id), id)
	}
	return m, nil
}

func restoreFailed(msg, id string) *api.Error {
	e := api.NewError(http.StatusConflict, api.CodeRestoreFailed, msg)
	e.Context = map[string]any{"backupId": id}
	return e
}

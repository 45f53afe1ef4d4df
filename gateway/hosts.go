package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/workflows/contract"
)

// drainParallel bounds how many sandboxes a drain puts to sleep at once:
// each sleep is a backup, which takes the host's disk and network.
const drainParallel = 4

// mountHosts adds the host routes: the registry the workers announce
// themselves in (the shared blob store), and drain for maintenance.
func (s *Server) mountHosts(v1 *echo.Group) {
	h := &hostRoutes{s: s}
	if s.backups != nil {
		h.reg = hosts.New(s.backups)
	}
	v1.GET("/hosts", h.list)
	v1.DELETE("/hosts/:id", h.forget)
	v1.POST("/hosts/:id/drain", h.drain)
	v1.DELETE("/hosts/:id/drain", h.undrain)
}

type hostRoutes struct {
	s   *Server
	reg *hosts.Registry // nil: the gateway has no blob store
}

func publicHost(h hosts.Host) api.Host {
	res := func(r hosts.Resources) api.Resources {
		return api.Resources{MilliCPU: r.MilliCPU, MemoryMiB: r.MemoryMiB}
	}
	out := api.Host{ID: h.ID, Live: h.Live, LastSeen: h.SeenAt, Version: h.Version, Addr: h.Addr,
		Capacity: res(h.Capacity), Used: res(h.Used), Reserved: res(h.Reserved), Sandboxes: len(h.Sandboxes), Warm: h.Warm, Draining: h.Draining}
	if c := h.CRIU; c != nil {
		out.CRIU = &api.HostCRIU{State: c.State, Version: c.Version, Detail: c.Detail}
	}
	return out
}

func hostNotFound(id string) *api.Error {
	return api.NewError(http.StatusNotFound, api.CodeHostNotFound, "no host "+strconv.Quote(id)+" has announced itself (`berth hosts` lists them)")
}

func registryUnavailable(err error) *api.Error {
	e := api.NewError(http.StatusServiceUnavailable, api.CodeBackupStoreUnavailable, "the host registry (in the backup store) cannot be read")
	if err != nil {
		e.Message += ": " + err.Error()
	}
	e.Retryable = true
	return e
}

func (h *hostRoutes) list(c echo.Context) error {
	if h.reg == nil {
		return registryUnavailable(nil)
	}
	hs, err := h.reg.List(c.Request().Context())
	if err != nil {
		return registryUnavailable(err)
	}
	out := make([]api.Host, 0, len(hs))
	for _, x := range hs {
		out = append(out, publicHost(x))
	}
	return c.JSON(http.StatusOK, out)
}

// host reads the host of the route, 404 when none of that id announced.
func (h *hostRoutes) host(ctx context.Context, id string) (hosts.Host, error) {
	if h.reg == nil {
		return hosts.Host{}, registryUnavailable(nil)
	}
	x, err := h.reg.Get(ctx, id)
	if errors.Is(err, hosts.ErrNotFound) {
		return x, hostNotFound(id)
	}
	if err != nil {
		return x, registryUnavailable(err)
	}
	return x, nil
}

func (h *hostRoutes) setDraining(ctx context.Context, id string, on bool) (hosts.Host, error) {
	if _, err := h.host(ctx, id); err != nil {
		return hosts.Host{}, err
	}
	if err := h.reg.SetDraining(ctx, id, on); err != nil {
		return hosts.Host{}, registryUnavailable(err)
	}
	return h.host(ctx, id)
}

// forget removes a lost host from the registry: a machine gone for good
// would otherwise be listed as lost forever. Refused while the host is
// live, and while sandboxes there still look as if they ran (host loss
// stops them within seconds of the loss; forgetting the host before that
// would leave them so). Their workspaces' fate is unchanged: it is in
// their workflows, not in the registry.
func (h *hostRoutes) forget(c echo.Context) error {
	ctx := c.Request().Context()
	id := c.Param("id")
	x, err := h.host(ctx, id)
	if err != nil {
		return err
	}
	if x.Live {
		return api.NewError(http.StatusConflict, api.CodeHostLive, "host "+strconv.Quote(id)+" announced itself "+
			time.Since(x.SeenAt).Round(time.Second).String()+" ago: only a lost host can be forgotten; stop its worker first")
	}
	var views []contract.View
	err = h.s.callTemporal(ctx, func(ctx context.Context) (err error) {
		views, err = hosts.SandboxesOn(ctx, h.s.temporal, h.s.namespace, id,
			contract.StatusStarting, contract.StatusRunning, contract.StatusDozing, contract.StatusStopping)
		return err
	})
	if err != nil {
		return fromTemporal(err, "")
	}
	if len(views) > 0 {
		names := make([]string, 0, 3)
		for _, v := range views[:min(3, len(views))] {
			names = append(names, v.Name)
		}
		e := api.NewError(http.StatusConflict, api.CodeHostInUse, fmt.Sprintf(
			"%d sandboxes on host %q (%s) are not stopped by its loss yet; live workers do that within seconds, try again",
			len(views), id, strings.Join(names, ", ")))
		e.Retryable = true
		return e
	}
	if err := h.reg.Forget(ctx, id); err != nil {
		if errors.Is(err, hosts.ErrNotFound) {
			return hostNotFound(id)
		}
		return registryUnavailable(err)
	}
	return c.JSON(http.StatusOK, publicHost(x))
}

func (h *hostRoutes) undrain(c echo.Context) error {
	x, err := h.setDraining(c.Request().Context(), c.Param("id"), false)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, publicHost(x))
}

// drain marks the host draining (placement sends no boot there) and puts
// every sandbox running there to sleep, its workspace backed up; with
// ?move=true each is started again, which placement sends to another
// host. It answers once every sandbox is done, with what became of each.
// Sandboxes that are starting there as the drain begins are not waited
// for: draining again catches them. A lost host is only marked: nothing
// there would answer, and host loss stops its sandboxes.
func (h *hostRoutes) drain(c echo.Context) error {
	move := false
	if v := c.QueryParam("move"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("move must be true or false")
		}
		move = b
	}
	ctx := c.Request().Context()
	id := c.Param("id")
	x, err := h.setDraining(ctx, id, true)
	if err != nil {
		return err
	}
	out := api.DrainResult{Host: publicHost(x), Sandboxes: []api.DrainedSandbox{}}
	if !x.Live {
		// Nothing there answers a sleep; host loss stops its sandboxes.
		return c.JSON(http.StatusOK, out)
	}
	var views []contract.View
	err = h.s.callTemporal(ctx, func(ctx context.Context) (err error) {
		views, err = hosts.SandboxesOn(ctx, h.s.temporal, h.s.namespace, id, contract.StatusRunning, contract.StatusDozing)
		return err
	})
	if err != nil {
		return fromTemporal(err, "")
	}
	out.Sandboxes = make([]api.DrainedSandbox, len(views))
	sem := make(chan struct{}, drainParallel)
	var wg sync.WaitGroup
	for i, v := range views {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out.Sandboxes[i] = h.drainOne(ctx, v.Name, move)
		}()
	}
	wg.Wait()
	return c.JSON(http.StatusOK, out)
}

// drainOne sleeps one sandbox and, to move it, starts it again.
func (h *hostRoutes) drainOne(ctx context.Context, name string, move bool) api.DrainedSandbox {
	d := api.DrainedSandbox{Name: name, Action: "slept"}
	failed := func(err error) api.DrainedSandbox {
		d.Action = "failed"
		var ae *api.Error
		if !errors.As(err, &ae) {
			ae = fromTemporal(err, name)
		}
		d.Error = ae
		return d
	}
	h.s.targets.drop(name) // the container goes away
	if _, err := h.s.update(ctx, name, contract.OpSleep); err != nil {
		return failed(err)
	}
	if !move {
		return d
	}
	v, err := h.s.update(ctx, name, contract.OpStart)
	if err != nil {
		return failed(err)
	}
	d.Action, d.Host = "moved", v.Host
	return d
}

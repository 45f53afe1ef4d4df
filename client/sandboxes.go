package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/berthdev/berth/api"
)

// SandboxInfo is the state of a sandbox (the Sandbox schema of
// schemas/openapi.yaml).
type SandboxInfo struct {
	Name         string
	InstanceType string
	Status       string // created, starting, running, dozing, stopping, stopped, destroying, destroyed
	SleepAfter   time.Duration
	KeepAlive    bool
	// DozeAfter freezes the sandbox in place after this long without a
	// client (0: never); any call thaws it.
	DozeAfter time.Duration
	Env       map[string]string
	// Image and ImageDigest: the sandbox's own image and what it resolved
	// to at create ("" for its instance type's image).
	Image, ImageDigest string
	LastBackupID       string
	Host               string
	// HostLost is set while the host holding the workspace is lost; when
	// its NewerDataAtRisk, Start needs StartOptions.AllowRollback.
	HostLost *HostLoss
	// Egress is the sandbox's egress policy (mode "open" unless set).
	Egress    *EgressPolicy
	CreatedAt time.Time
	UpdatedAt time.Time
}

// HostLoss is the loss of the host holding a sandbox's workspace: since
// when the sandbox knows, when the host was last seen, why, and whether
// the lost volume may hold data newer than the newest backup.
type HostLoss = api.HostLoss

// sandboxWire is api.Sandbox with sleepAfter read leniently (a duration
// string or a number of seconds).
type sandboxWire struct {
	api.Sandbox
	SleepAfter json.RawMessage `json:"sleepAfter"`
}

// UnmarshalJSON accepts sleepAfter as a duration string ("10m0s") or a
// number of seconds.
func (s *SandboxInfo) UnmarshalJSON(b []byte) error {
	var w sandboxWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	d, err := parseDurationJSON(w.SleepAfter)
	if err != nil {
		return err
	}
	doze, err := parseDurationJSON(json.RawMessage(strconvQuote(w.DozeAfter)))
	if err != nil {
		return err
	}
	*s = SandboxInfo{DozeAfter: doze,
		Name: w.Name, InstanceType: w.InstanceType, Status: w.Status, SleepAfter: d,
		KeepAlive: w.KeepAlive, Env: w.Env, Image: w.Image, ImageDigest: w.ImageDigest, LastBackupID: w.LastBackupID, Host: w.Host,
		HostLost: w.HostLost, Egress: w.Egress, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt,
	}
	return nil
}

// parseDurationJSON reads a duration the gateway sent (api.Duration's
// syntax); an absent, null or empty one is 0.
func parseDurationJSON(raw json.RawMessage) (time.Duration, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return 0, nil
	}
	var d api.Duration
	if err := d.UnmarshalJSON(raw); err != nil {
		return 0, errors.New("berth: bad duration " + string(raw) + ": " + err.Error())
	}
	return time.Duration(d), nil
}

// CreateRequest claims a sandbox name. Zero values take the server defaults
// (instance type basic, sleepAfter 10m).
type CreateRequest struct {
	Name         string
	InstanceType string
	// Image is the sandbox's own image (any ref Docker can pull, or an
	// image the workers have), fixed for its life; "" runs its type's.
	Image      string
	SleepAfter time.Duration
	KeepAlive  bool
	// DozeAfter: nil takes the server's default; 0 never dozes.
	DozeAfter *time.Duration
	Env       map[string]string
	// Egress is the egress policy; nil is the default (open).
	Egress *EgressPolicy
	// Services are declared at create; every boot starts them.
	Services []Service
	// Start boots the sandbox at once (a new claim only): the first exec
	// then waits for less.
	Start bool
}

func (r CreateRequest) MarshalJSON() ([]byte, error) {
	w, err := r.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// wire is the request as the API's CreateRequest.
func (r CreateRequest) wire() (api.CreateRequest, error) {
	w := api.CreateRequest{Name: r.Name, InstanceType: r.InstanceType, Image: r.Image, Start: r.Start}
	if r.SleepAfter != 0 {
		w.SleepAfter = api.SleepAfter{D: r.SleepAfter, Set: true}
	}
	if r.KeepAlive {
		w.KeepAlive = Ptr(true)
	}
	if r.DozeAfter != nil {
		w.DozeAfter = api.DozeAfter{D: *r.DozeAfter, Set: true}
	}
	if len(r.Env) > 0 {
		w.Env = make(map[string]*string, len(r.Env))
		for k, v := range r.Env {
			w.Env[k] = &v
		}
	}
	if r.Egress != nil {
		egress, err := json.Marshal(r.Egress)
		if err != nil {
			return api.CreateRequest{}, err
		}
		w.Egress = egress
	}
	if len(r.Services) > 0 {
		w.Services = r.Services
	}
	return w, nil
}

func sandboxPath(name string, rest ...string) string {
	p := "/v1/sandboxes/" + url.PathEscape(name)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

// Create claims a sandbox. created is true for a new claim (201) and false
// when an identical create already claimed the name (200). A different
// config under the same name is ErrNameConflict; a destroyed name is
// ErrSandboxDestroyed (names are never reused).
func (c *Client) Create(ctx context.Context, req CreateRequest) (info *SandboxInfo, created bool, err error) {
	info = new(SandboxInfo)
	status, err := c.call(ctx, request{method: http.MethodPost, path: "/v1/sandboxes", body: req}, info)
	if err != nil {
		return nil, false, err
	}
	return info, status == http.StatusCreated, nil
}

// List lists sandboxes, optionally only those in one status ("" for all).
func (c *Client) List(ctx context.Context, status string) ([]SandboxInfo, error) {
	var q url.Values
	if status != "" {
		q = url.Values{"status": {status}}
	}
	var raw json.RawMessage
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/v1/sandboxes", query: q}, &raw); err != nil {
		return nil, err
	}
	// A bare array, or an object wrapping it (for pagination later).
	var list []SandboxInfo
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '{' {
		var wrapped struct {
			Sandboxes []SandboxInfo `json:"sandboxes"`
		}
		err := json.Unmarshal(t, &wrapped)
		return wrapped.Sandboxes, err
	}
	err := json.Unmarshal(raw, &list)
	return list, err
}

func (c *Client) sandboxCall(ctx context.Context, method, path string, body any) (*SandboxInfo, error) {
	info := new(SandboxInfo)
	if _, err := c.call(ctx, request{method: method, path: path, body: body}, info); err != nil {
		return nil, err
	}
	if info.Name == "" {
		return nil, nil // the route answered without a body
	}
	return info, nil
}

// Get returns a sandbox's state (ErrSandboxNotFound if there is none).
func (c *Client) Get(ctx context.Context, name string) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodGet, sandboxPath(name), nil)
}

// Start boots the sandbox's container (restoring /workspace).
func (c *Client) Start(ctx context.Context, name string) (*SandboxInfo, error) {
	return c.StartWith(ctx, name, StartOptions{})
}

// StartOptions tune a start.
type StartOptions struct {
	// BackupID restores this backup instead of the newest one (ListBackups
	// lists them): the way back when the newest is corrupt, which a start
	// reports as ErrRestoreFailed. The sandbox must not be running.
	BackupID string
	// AllowRollback consents to starting from the newest backup (or an
	// empty workspace) when the host that held newer data is lost; without
	// it such a start fails with ErrRollbackNeeded, which names the host
	// and what the start would restore.
	AllowRollback bool
}

// StartWith is Start with options.
func (c *Client) StartWith(ctx context.Context, name string, opts StartOptions) (*SandboxInfo, error) {
	var body any
	if opts != (StartOptions{}) {
		body = api.StartRequest{BackupID: opts.BackupID, AllowRollback: opts.AllowRollback}
	}
	return c.sandboxCall(ctx, http.MethodPost, sandboxPath(name, "start"), body)
}

// Sleep backs up /workspace and removes the container.
func (c *Client) Sleep(ctx context.Context, name string) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodPost, sandboxPath(name, "sleep"), nil)
}

// Kill restarts the sandbox's workflow run; the container keeps running.
func (c *Client) Kill(ctx context.Context, name string) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodPost, sandboxPath(name, "kill"), nil)
}

// Destroy removes the container and volume and tombstones the name.
func (c *Client) Destroy(ctx context.Context, name string) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodDelete, sandboxPath(name), nil)
}

// Patch changes sleepAfter and/or keepAlive; nil fields are left alone.
func (c *Client) Patch(ctx context.Context, name string, sleepAfter *time.Duration, keepAlive *bool) (*SandboxInfo, error) {
	body := api.PatchRequest{KeepAlive: keepAlive}
	if sleepAfter != nil {
		body.SleepAfter = api.SleepAfter{D: *sleepAfter, Set: true}
	}
	return c.sandboxCall(ctx, http.MethodPatch, sandboxPath(name), body)
}

// SetDozeAfter changes how long the sandbox waits without a client before
// it dozes; 0 turns dozing off (a dozing sandbox thaws).
func (c *Client) SetDozeAfter(ctx context.Context, name string, dozeAfter time.Duration) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodPatch, sandboxPath(name), api.PatchRequest{DozeAfter: api.DozeAfter{D: dozeAfter, Set: true}})
}

// SetEnv changes the sandbox env: a nil value unsets the variable. It
// applies to processes started afterwards.
func (c *Client) SetEnv(ctx context.Context, name string, env map[string]*string) (*SandboxInfo, error) {
	return c.sandboxCall(ctx, http.MethodPatch, sandboxPath(name, "env"), api.EnvChange{Env: env})
}

// Ptr returns a pointer to v, for env maps (map[string]*string, where nil
// means unset) and optional Patch fields.
func Ptr[T any](v T) *T { return &v }

// strconvQuote is a JSON string of s, "" for an empty one.
func strconvQuote(s string) string {
	if s == "" {
		return ""
	}
	b, _ := json.Marshal(s)
	return string(b)
}

package supervisorapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/berthdev/berth/api"
)

// Client calls one boot of a sandbox's supervisor.
type Client struct {
	HTTP *http.Client
	// Base is where the supervisor's paths start: "http://<addr>", or a
	// host proxy's "https://<route>/c/<container>".
	Base string
	// Auth is the boot's "Bearer <token>" (auth.SupervisorToken).
	Auth string
	// Refused, when set, turns an answer that is not the supervisor's
	// own (a host proxy's refusal) into an error; the body is closed.
	Refused func(*http.Response) error
}

// Error is an answer of the supervisor that is not 2xx.
type Error struct {
	Method, Path string
	Status       int
	StatusText   string
	Body         []byte // its first 4 KiB
}

func (e *Error) Error() string {
	return fmt.Sprintf("supervisor %s %s: %s: %s", e.Method, e.Path, e.StatusText, bytes.TrimSpace(e.Body))
}

// NewRequest is a request for path (and query) on the supervisor, with
// its token.
func (c Client) NewRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", c.Auth)
	return req, nil
}

// Do sends req and passes the answer through Refused.
func (c Client) Do(req *http.Request) (*http.Response, error) {
	resp, err := c.HTTP.Do(req)
	if err == nil && c.Refused != nil {
		if err = c.Refused(resp); err != nil {
			resp.Body.Close()
			return nil, err
		}
	}
	return resp, err
}

// Call sends body (JSON, unless nil) to path and decodes a 2xx answer into
// out (unless nil). An answer that is not 2xx is an *Error.
func (c Client) Call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(buf)
	}
	req, err := c.NewRequest(ctx, method, path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if out != nil {
		req.Header.Set("Accept", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &Error{Method: method, Path: path, Status: resp.StatusCode, StatusText: resp.Status, Body: msg}
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil
	}
	return json.NewDecoder(io.LimitReader(resp.Body, maxAnswer)).Decode(out)
}

// maxAnswer bounds a JSON answer a Client decodes.
const maxAnswer = 1 << 20

// Health is GET /v1/health.
func (c Client) Health(ctx context.Context) (Health, error) {
	var h Health
	err := c.Call(ctx, http.MethodGet, PathHealth, nil, &h)
	return h, err
}

// Activity is GET /v1/activity.
func (c Client) Activity(ctx context.Context) (ActivityReport, error) {
	var r ActivityReport
	err := c.Call(ctx, http.MethodGet, PathActivity, nil, &r)
	return r, err
}

// Hold is POST /v1/activity {openFor}: the sandbox is busy for d from now.
func (c Client) Hold(ctx context.Context, d time.Duration) error {
	openFor := api.Duration(d)
	return c.Call(ctx, http.MethodPost, PathActivity, ActivityHold{OpenFor: &openFor}, nil)
}

// SetEnv is PUT /v1/env: the sandbox's env layer becomes env.
func (c Client) SetEnv(ctx context.Context, env map[string]string) error {
	e := make(api.Env, len(env))
	for k, v := range env {
		e[k] = &v
	}
	return c.Call(ctx, http.MethodPut, PathEnv, EnvBody{Env: &e}, nil)
}

// SetServices is PUT /v1/services: the declared services become l.
func (c Client) SetServices(ctx context.Context, l []api.Service) error {
	return c.Call(ctx, http.MethodPut, PathServices, ServicesBody{Services: &l}, nil)
}

// Services is GET /v1/services: how the supervisor runs its services.
func (c Client) Services(ctx context.Context) (api.ServiceList, error) {
	var l api.ServiceList
	err := c.Call(ctx, http.MethodGet, PathServices, nil, &l)
	return l, err
}

// Stats is GET /v1/stats: what the container uses now. The figures come
// from inside the sandbox: the caller checks them (ContainerStats.Valid).
func (c Client) Stats(ctx context.Context) (api.ContainerStats, error) {
	var cs api.ContainerStats
	err := c.Call(ctx, http.MethodGet, PathStats, nil, &cs)
	return cs, err
}

// Doze is POST /v1/doze.
func (c Client) Doze(ctx context.Context, minIdle int64) (DozeAnswer, error) {
	var a DozeAnswer
	err := c.Call(ctx, http.MethodPost, PathDoze, DozeRequest{MinIdleMs: minIdle}, &a)
	return a, err
}

// Thaw is POST /v1/thaw: the doze fence lifts.
func (c Client) Thaw(ctx context.Context) error {
	return c.Call(ctx, http.MethodPost, PathThaw, nil, nil)
}

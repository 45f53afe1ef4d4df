package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/workflows/contract"
)

// supervisorCall makes one authenticated request to a sandbox's supervisor
// and decodes a JSON answer into out (when out is not nil).
func (a *Activities) supervisorCall(ctx context.Context, c contract.Container, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.Addr+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+auth.SupervisorToken(a.Secret, c.BootID))
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return &supervisorError{Status: resp.StatusCode,
			msg: fmt.Sprintf("supervisor %s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(msg))}
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// supervisorError is a non-2xx answer of a supervisor.
type supervisorError struct {
	Status int
	msg    string
}

func (e *supervisorError) Error() string { return e.msg }

type supervisorHealth struct {
	BootID string `json:"bootId"`
}

type supervisorActivity struct {
	IdleMs       int64 `json:"idleMs"`
	ClientIdleMs int64 `json:"clientIdleMs"`
}

package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/berthdev/berth/api"
)

// ForkFrom names a fork's origin: sandbox Sandbox, and optionally which of
// its backups (BackupID). Without one the fork starts as a fresh snapshot
// of a running origin, or as its newest good backup.
type ForkFrom = api.ForkFrom

// forkRequest is a CreateRequest with "from".
type forkRequest struct {
	CreateRequest
	From ForkFrom
}

func (r forkRequest) MarshalJSON() ([]byte, error) {
	w, err := r.CreateRequest.wire()
	if err != nil {
		return nil, err
	}
	w.From = &r.From
	return json.Marshal(w)
}

// Fork creates req.Name as a fork of from: its workspace starts as the
// origin's backup (copied, so the origin is untouched and the two never
// share writes). created is as for Create. An unknown origin is
// ErrSandboxNotFound, a destroyed one ErrSandboxDestroyed, a missing
// backup (or an origin with none that is not running) ErrBackupNotFound,
// a backup marked bad ErrRestoreFailed.
func (c *Client) Fork(ctx context.Context, req CreateRequest, from ForkFrom) (info *SandboxInfo, created bool, err error) {
	info = new(SandboxInfo)
	status, err := c.call(ctx, request{method: http.MethodPost, path: "/v1/sandboxes", body: forkRequest{req, from}}, info)
	if err != nil {
		return nil, false, err
	}
	return info, status == http.StatusCreated, nil
}

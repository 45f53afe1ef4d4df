package client

import (
	"context"
	"net/http"

	"github.com/berthdev/berth/api"
)

// BackupInfo describes one complete workspace backup.
type BackupInfo = api.Backup

// ListBackups lists a sandbox's complete backups, newest first. The newest
// is what the next start restores into /workspace.
func (c *Client) ListBackups(ctx context.Context, name string) ([]BackupInfo, error) {
	var out []BackupInfo
	if _, err := c.call(ctx, request{method: http.MethodGet, path: sandboxPath(name, "backups")}, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// CreateBackup snapshots the /workspace of a running sandbox (it keeps
// running) and returns the new backup once it is complete. A sandbox that
// is not running fails with the code SANDBOX_NOT_RUNNING.
func (c *Client) CreateBackup(ctx context.Context, name string) (*BackupInfo, error) {
	out := new(BackupInfo)
	if _, err := c.call(ctx, request{method: http.MethodPost, path: sandboxPath(name, "backups")}, out); err != nil {
		return nil, err
	}
	return out, nil
}

package client

import (
	"context"
	"net/http"
	"time"
)

// BackupInfo describes one complete workspace backup.
type BackupInfo struct {
	BackupID  string    `json:"backupId"`
	Size      int64     `json:"size"`  // compressed bytes in the store
	Bytes     int64     `json:"bytes"` // uncompressed bytes of the files
	Files     int64     `json:"files"`
	SHA256    string    `json:"sha256"`
	CreatedAt time.Time `json:"createdAt"`
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
	// Bad marks a backup that failed to restore as corrupt: a start only
	// restores it when named, and it does not count among the kept ones.
	Bad       bool   `json:"bad,omitempty"`
	BadReason string `json:"badReason,omitempty"`
}

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

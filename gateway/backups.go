package gateway

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/workflows/contract"
)

func publicBackup(m backup.Manifest) api.Backup {
	b := api.Backup{BackupID: m.BackupID, Size: m.Size, Bytes: m.Bytes, Files: m.Files, SHA256: m.SHA256,
		CreatedAt: m.CreatedAt, ExpiresAt: m.ExpiresAt(), Bad: m.Bad, BadReason: m.BadReason}
	if r := m.Rescued; r != nil {
		b.Rescued = &api.RescuedFrom{Host: r.Host, LostAt: r.LostAt}
	}
	return b
}

// listBackups lists a sandbox's complete backups, newest first.
func (s *Server) listBackups(c echo.Context) error {
	name := c.Param("name")
	if _, err := s.describe(c.Request().Context(), name); err != nil {
		return err
	}
	ms, err := backup.List(c.Request().Context(), s.backups, name)
	if err != nil && !errors.Is(err, backup.ErrNoBackup) {
		return unavailableStore(err)
	}
	out := make([]api.Backup, 0, len(ms))
	for _, m := range ms {
		out = append(out, publicBackup(m))
	}
	return c.JSON(http.StatusOK, out)
}

// createBackup snapshots a running sandbox through its workflow (which
// records backup-created) and answers with the new backup.
func (s *Server) createBackup(c echo.Context) error {
	name := c.Param("name")
	v, err := s.update(c.Request().Context(), name, contract.OpBackup)
	if err != nil {
		return err
	}
	m, err := backup.ReadManifest(c.Request().Context(), s.backups, name, v.LastBackupID)
	if err != nil {
		return unavailableStore(err)
	}
	return c.JSON(http.StatusCreated, publicBackup(m))
}

func unavailableStore(err error) *api.Error {
	e := api.NewError(http.StatusServiceUnavailable, api.CodeBackupStoreUnavailable, "the backup store is not reachable: "+err.Error())
	e.Retryable, e.RetryAfterMs = true, 2000
	return e
}

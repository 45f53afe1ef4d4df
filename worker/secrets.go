package worker

import (
	"errors"
	"path/filepath"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/egress/secrets"
)

// openSecrets opens the store the egress proxy resolves placeholders from:
// for now the file store under the data directory, sealed with a key
// derived from BERTH_SECRET.
func openSecrets(cfg config.Config, backups blob.Store) (secrets.Store, error) {
	_ = backups
	if len(cfg.Secret) < 16 {
		return nil, errors.New("egress secrets: BERTH_SECRET must be at least 16 bytes")
	}
	return secrets.NewFileStore(filepath.Join(cfg.DataDir, "secrets"), []byte(cfg.Secret))
}

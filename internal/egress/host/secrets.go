package host

import (
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/egress/secrets"
)

// openSecrets opens the store the egress proxy resolves placeholders from:
// the secrets the gateway's /v1/secrets writes into the shared blob store,
// sealed with the same key material.
func openSecrets(cfg config.Config, backups blob.Store) (secrets.Store, error) {
	keys, err := secrets.StoreKeys(cfg.SecretsKey, cfg.SecretsRetiredKeys, cfg.Secret)
	if err != nil {
		return nil, err
	}
	return secrets.OpenBlobStore(backups, keys)
}

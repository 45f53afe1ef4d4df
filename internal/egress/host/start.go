package host

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
)

// Start runs this host's egress proxy and resolver (nil acts.Egress when
// the operator turned them off: the guard still isolates sandboxes).
func Start(ctx context.Context, cfg config.Config, c client.Client, acts *activities.Activities, backups blob.Store, log *zap.Logger) error {
	if cfg.NoEgress {
		log.Warn("EGRESS POLICY OFF (BERTH_EGRESS=off or BERTH_NETGUARD=off): sandboxes reach the public internet directly; " +
			"egress policies and secrets are not enforced")
		return nil
	}
	store, err := openSecrets(cfg, backups)
	if err != nil {
		return err
	}
	h, err := newEgressHost(ctx, cfg, acts.Docker, store, log.Named("egress"))
	if err != nil {
		return fmt.Errorf("%w (BERTH_EGRESS=off runs without egress policies)", err)
	}
	h.reportRefusals(c)
	acts.Egress = h
	go h.watch(ctx, cfg.HostID)
	return nil
}

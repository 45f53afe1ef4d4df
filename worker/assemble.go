package worker

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/backup"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	egresshost "github.com/berthdev/berth/internal/egress/host"
	"github.com/berthdev/berth/internal/hostproxy"
	"github.com/berthdev/berth/internal/hosts/upkeep"
	"github.com/berthdev/berth/internal/hosttls"
	"github.com/berthdev/berth/internal/netguard/keeper"
	"github.com/berthdev/berth/internal/reconcile"
	"github.com/berthdev/berth/internal/supervisorbin"
	"github.com/berthdev/berth/internal/thaw"
	"github.com/berthdev/berth/internal/tracing"
)

// RunWorker assembles a worker for this Docker host from cfg (instance
// types, supervisor binary, Docker, backup store, per-sandbox limits from
// the environment), starts backup retention and runs it on c until ctx
// ends. version is stamped on the sandboxes it boots. `berth worker` and
// `berth dev` both call it.
func RunWorker(ctx context.Context, cfg config.Config, c client.Client, log *zap.Logger, version string) error {
	types, err := config.LoadInstanceTypes(cfg.InstanceTypesFile)
	if err != nil {
		return err
	}
	warmPool, err := config.ParseWarmPool(cfg.WarmPool, types)
	if err != nil {
		return err
	}
	if err := cfg.ValidateHostAddr(); err != nil {
		return err
	}
	// Paths under the data dir become bind mounts (the egress trust
	// bundle), which Docker takes only absolute; `berth dev` passes a
	// relative ".berth".
	if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
		return err
	}
	supEnv, err := supervisorEnv()
	if err != nil {
		return err
	}
	sup, err := supervisorbin.Find(ctx, cfg.Supervisor, cfg.DataDir, os.Stderr)
	if err != nil {
		return err
	}
	docker, err := dockerrt.New()
	if err != nil {
		return err
	}
	defer docker.Close()
	if err := EnsureSearchAttributes(ctx, c, cfg.Namespace); err != nil {
		return err
	}
	backups, err := blobstore.OpenBackups(ctx, &cfg)
	if err != nil {
		return err
	}
	go backup.RunRetention(ctx, backups, cfg.BackupKeep, time.Hour, log.Named("retention"))
	go upkeep.WatchDisk(ctx, cfg.HostID, cfg.DataDir)
	auth, err := dockerrt.LoadRegistryAuth(cfg.RegistryAuth)
	if err != nil {
		return err
	}
	acts := &activities.Activities{
		RegistryAuth: auth,
		Docker:       docker, HostID: cfg.HostID, Namespace: cfg.Namespace, Secret: cfg.Secret, SupervisorPath: sup,
		DefaultImage: cfg.DefaultImage, InstanceTypes: types, Version: version,
		HTTP: supervisorHTTPClient(), Log: log.Named("activities"),
		DataDir: cfg.DataDir, Backups: backups, BackupTTL: cfg.BackupTTL, BackupKeep: cfg.BackupKeep,
		SupervisorEnv: supEnv,
		NoDiskLimits:  cfg.NoDiskLimits,
		Temporal:      c, // ArchiveEvents reads closed runs
	}
	thawer := thaw.New(acts, c, log.Named("thaw"))
	if cfg.HostAddr == "" {
		if path := hosttls.ThawSocket(cfg.DataDir, cfg.HostID); path != "" {
			if err := thaw.ServeSocket(ctx, path, thawer, log.Named("thaw")); err != nil {
				log.Warn("no thaw socket: requests to dozing sandboxes wait for the workflow", zap.Error(err))
			}
		}
	}
	if cfg.HostAddr != "" {
		acts.Route = cfg.HostAddr
		proxy := hostproxy.New(docker, cfg.HostID, cfg.Namespace, cfg.Secret, log.Named("hostproxy"))
		proxy.ServeThaw(thawer)
		stopProxy, err := hostproxy.Serve(ctx, cfg.HostAddr, proxy, cfg.Secret)
		if err != nil {
			return err
		}
		// After the pollers stopped (Run returns): requests in flight
		// finish, as the new worker of a rolling upgrade takes new ones.
		defer stopProxy()
	}
	if !cfg.NoNetGuard {
		acts.NetGuard = keeper.New(docker, log.Named("netguard"), !cfg.NoEgress)
	}
	if err := egresshost.Start(ctx, cfg, c, acts, backups, log); err != nil {
		return err
	}
	acts.Pool = activities.NewWarmPool(acts, warmPool) // before the announcer, which reads it
	every, err := reconcile.PeriodFromEnv()
	if err != nil {
		return err
	}
	tidy := reconcile.NewTidy()
	if err := upkeep.Start(ctx, c, acts, backups, version, log, tidy.Poke); err != nil {
		return err
	}
	go reconcile.Every(ctx, c, acts, every, tidy)
	if cfg.DropWarmOnExit && acts.Pool != nil {
		defer acts.Pool.DropAll()
	}
	log.Info("worker started", zap.String("host", cfg.HostID), zap.String("temporal", cfg.TemporalAddress))
	return Run(ctx, c, acts)
}

// supervisorLimitVars are the per-sandbox limits an operator sets on the
// worker; it hands them to every sandbox's supervisor, which enforces them.
var supervisorLimitVars = []string{"BERTH_MAX_PROCESSES", "BERTH_MAX_TERMINALS", "BERTH_MAX_LOG_FOLLOWERS"}

// supervisorEnv checks the limits set in the worker's environment (a bad
// value would stop every supervisor from starting) and returns them as
// KEY=VALUE for the containers.
func supervisorEnv() ([]string, error) {
	var out []string
	for _, k := range supervisorLimitVars {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		if n, err := strconv.Atoi(v); err != nil || n < 1 {
			return nil, fmt.Errorf("%s=%q: want an integer >= 1", k, v)
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}

// supervisorHTTPClient keeps connections to supervisors alive and pooled.
func supervisorHTTPClient() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 16
	t.IdleConnTimeout = 90 * time.Second
	return tracing.Client(&http.Client{Transport: t}, "supervisor", true)
}

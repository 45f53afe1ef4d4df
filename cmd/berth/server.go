package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/worker"
)

// serverFlags binds the flags every server command shares onto cfg.
func serverFlags(name string, cfg *config.Config) *flag.FlagSet {
	fs := flag.NewFlagSet("berth "+name, flag.ExitOnError)
	fs.StringVar(&cfg.TemporalAddress, "temporal-address", cfg.TemporalAddress, "Temporal frontend host:port (TEMPORAL_ADDRESS)")
	fs.StringVar(&cfg.Namespace, "namespace", cfg.Namespace, "Temporal namespace (TEMPORAL_NAMESPACE)")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "state directory (BERTH_DATA_DIR)")
	fs.StringVar(&cfg.InstanceTypesFile, "instance-types", cfg.InstanceTypesFile, "JSON file of custom instance types (BERTH_INSTANCE_TYPES)")
	return fs
}

func newLogger(console bool) *zap.Logger {
	level := zap.InfoLevel
	if l, err := zapcore.ParseLevel(os.Getenv("BERTH_LOG_LEVEL")); err == nil && os.Getenv("BERTH_LOG_LEVEL") != "" {
		level = l
	}
	cfg := zap.NewProductionConfig()
	if console {
		cfg = zap.NewDevelopmentConfig()
		cfg.DisableStacktrace = true
	}
	cfg.Level = zap.NewAtomicLevelAt(level)
	log, err := cfg.Build()
	if err != nil {
		return zap.NewNop()
	}
	return log
}

// reconnectParams shorten gRPC's reconnect backoff (the SDK caps it at
// 10 s): after a Temporal outage the worker and the gateway are back within
// a couple of seconds of Temporal, not up to 12 s later.
var reconnectParams = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 200 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
	MinConnectTimeout: 20 * time.Second,
}

// dialTemporal connects, retrying for a while: a worker often starts
// before its Temporal.
func dialTemporal(ctx context.Context, cfg config.Config, log *zap.Logger) (client.Client, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := client.DialContext(ctx, client.Options{
			HostPort: cfg.TemporalAddress, Namespace: cfg.Namespace,
			Logger:            tlog.NewStructuredLogger(sdkLogger()),
			ConnectionOptions: client.ConnectionOptions{DialOptions: []grpc.DialOption{grpc.WithConnectParams(reconnectParams)}},
		})
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func runWorkerCmd(ctx context.Context, args []string) error {
	cfg := config.FromEnv()
	fs := serverFlags("worker", &cfg)
	fs.StringVar(&cfg.HostID, "host-id", cfg.HostID, "this host's id: its task queue is berth-host-<id> (BERTH_HOST_ID)")
	fs.StringVar(&cfg.Supervisor, "supervisor", cfg.Supervisor, "path of the berth-supervisor binary (BERTH_SUPERVISOR)")
	fs.StringVar(&cfg.DefaultImage, "default-image", cfg.DefaultImage, "sandbox image (BERTH_DEFAULT_IMAGE)")
	_ = fs.Parse(args)
	return withTemporal(ctx, cfg, false, func(c client.Client, log *zap.Logger) error {
		return worker.RunWorker(ctx, cfg, c, log, version)
	})
}

// withTemporal checks the secrets, sets up logging and a Temporal client
// for a production server command and runs it.
func withTemporal(ctx context.Context, cfg config.Config, needToken bool, run func(client.Client, *zap.Logger) error) error {
	if err := cfg.RequireSecrets(needToken); err != nil {
		return err
	}
	log := newLogger(false)
	defer log.Sync()
	c, err := dialTemporal(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	return run(c, log)
}

func runGatewayCmd(ctx context.Context, args []string) error {
	cfg := config.FromEnv()
	fs := serverFlags("gateway", &cfg)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "listen address (BERTH_LISTEN)")
	_ = fs.Parse(args)
	return withTemporal(ctx, cfg, true, func(c client.Client, log *zap.Logger) error {
		ln, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			return err
		}
		log.Info("gateway listening", zap.String("addr", ln.Addr().String()))
		return gateway.Run(ctx, cfg, c, log, ln)
	})
}

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"

	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/temporalconn"
	"github.com/berthdev/berth/internal/tracing"
	"github.com/berthdev/berth/worker"
)

func serverCommands() []*cobra.Command {
	return []*cobra.Command{
		devCmd(), workerCmd(), gatewayCmd(),
		{
			Use: "version", Short: "Print the version", Args: cobra.NoArgs,
			Run: func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), version) },
		},
	}
}

// serverCmd is a server command. Its settings come from flags, each of
// which also has a BERTH_* (or TEMPORAL_*) variable; the client verbs'
// flags (--url, --token, --json) are not its own.
func serverCmd(use, short string, run func(context.Context) error) *cobra.Command {
	return &cobra.Command{
		Use: use + " [flags]", Short: short, GroupID: "server", SilenceUsage: true,
		PreRunE: rejectClientFlags,
		RunE:    func(cmd *cobra.Command, _ []string) error { return run(cmd.Context()) },
	}
}

// rejectClientFlags refuses the client verbs' flags on a server command,
// where they would otherwise be silently ignored.
func rejectClientFlags(cmd *cobra.Command, _ []string) error {
	var err error
	cmd.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed && err == nil {
			err = usageError{fmt.Errorf("unknown flag: --%s\nSee '%s --help'.", f.Name, cmd.CommandPath())}
		}
	})
	return err
}

// serverUsage is a server command's usage: its own flags only.
func serverUsage(cmd *cobra.Command) error {
	fmt.Fprintf(cmd.OutOrStderr(), "Usage:\n  %s\n\nFlags:\n%s", cmd.UseLine(), cmd.LocalFlags().FlagUsages())
	return nil
}

// serverFlags binds the flags every server command shares onto cfg.
func serverFlags(fs *pflag.FlagSet, cfg *config.Config) {
	fs.StringVar(&cfg.TemporalAddress, "temporal-address", cfg.TemporalAddress, "Temporal frontend host:port (TEMPORAL_ADDRESS)")
	fs.StringVar(&cfg.Namespace, "namespace", cfg.Namespace, "Temporal namespace (TEMPORAL_NAMESPACE)")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "state directory (BERTH_DATA_DIR)")
	fs.StringVar(&cfg.InstanceTypesFile, "instance-types", cfg.InstanceTypesFile, "JSON file of custom instance types (BERTH_INSTANCE_TYPES)")
	fs.StringVar(&cfg.MetricsListen, "metrics-listen", cfg.MetricsListen,
		"host:port of /metrics, or off (BERTH_METRICS_LISTEN; default "+config.DefaultMetricsListen+", a worker's "+config.DefaultWorkerMetricsListen+")")
}

// temporalTLSFlags binds how a worker or gateway authenticates to
// Temporal (`berth dev` runs its own, plaintext). The API key has no flag: a flag's value is visible to every user in ps.
func temporalTLSFlags(fs *pflag.FlagSet, t *config.TemporalTLS) {
	fs.StringVar(&t.CertFile, "temporal-tls-cert", t.CertFile, "client certificate (PEM) for mutual TLS to Temporal (TEMPORAL_TLS_CERT)")
	fs.StringVar(&t.KeyFile, "temporal-tls-key", t.KeyFile, "its private key (TEMPORAL_TLS_KEY)")
	fs.StringVar(&t.CAFile, "temporal-tls-ca", t.CAFile, "CA certificate(s) the Temporal frontend's certificate must chain to (TEMPORAL_TLS_CA)")
	fs.StringVar(&t.ServerName, "temporal-tls-server-name", t.ServerName, "name in the frontend's certificate, default the address's host (TEMPORAL_TLS_SERVER_NAME)")
	fs.BoolVar(&t.Enabled, "temporal-tls", t.Enabled, "TLS to Temporal even with none of the files (TEMPORAL_TLS); TEMPORAL_API_KEY also turns it on")
}

func newLogger(console bool) *zap.Logger {
	level := zap.InfoLevel
	if l, err := zapcore.ParseLevel(os.Getenv("BERTH_LOG_LEVEL")); err == nil && os.Getenv("BERTH_LOG_LEVEL") != "" {
		level = l
	}
	// BERTH_LOG_FORMAT picks the encoding whatever the command: json (a
	// production worker's and gateway's default, for log collectors) or
	// console (`berth dev`'s, for a person).
	switch os.Getenv("BERTH_LOG_FORMAT") {
	case "json":
		console = false
	case "console":
		console = true
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

// observe starts what an operator watches a server by: /metrics on its
// own listener and, when OTEL_EXPORTER_OTLP_ENDPOINT is set, tracing. It
// answers the metrics address ("" when none) and a stop that flushes the
// last spans.
func observe(ctx context.Context, cfg config.Config, service, metricsDefault string, log *zap.Logger) (func(), string, error) {
	shutdown, err := tracing.Setup(ctx, service)
	if err != nil {
		return nil, "", fmt.Errorf("tracing (OTEL_EXPORTER_OTLP_*): %w", err)
	}
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = shutdown(ctx)
	}
	addr, isDefault := cfg.MetricsAddr(metricsDefault)
	ln, err := metrics.Listen(addr)
	switch {
	case err != nil && isDefault:
		// Another Berth on this machine has the default port: run
		// anyway, saying so; a configured address must work.
		log.Warn("metrics not served: the default address is taken; set BERTH_METRICS_LISTEN", zap.String("addr", addr), zap.Error(err))
		return stop, "", nil
	case err != nil:
		stop()
		return nil, "", fmt.Errorf("BERTH_METRICS_LISTEN=%s: %w", addr, err)
	case ln == nil:
		return stop, "", nil
	}
	metrics.Serve(ctx, ln, log)
	log.Info("metrics listening", zap.String("addr", ln.Addr().String()))
	return stop, ln.Addr().String(), nil
}

// reconnectParams shorten gRPC's reconnect backoff (the SDK caps it at
// 10 s): after a Temporal outage the worker and the gateway are back within
// a couple of seconds of Temporal, not up to 12 s later.
var reconnectParams = grpc.ConnectParams{
	Backoff:           backoff.Config{BaseDelay: 200 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 2 * time.Second},
	MinConnectTimeout: 20 * time.Second,
}

// dialTemporal connects, retrying for a while: a worker often starts
// before its Temporal. TEMPORAL_ADDRESS may list several frontends of one
// cluster; TLS and credentials come from TEMPORAL_TLS_* (internal/temporalconn).
func dialTemporal(ctx context.Context, cfg config.Config, log *zap.Logger) (client.Client, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Options afresh for each attempt: each dial gets its own resolver.
		opts, dial, err := temporalconn.Options(cfg)
		if err != nil {
			return nil, err // a bad file never gets better by retrying
		}
		opts.Logger = tlog.NewStructuredLogger(sdkLogger(log))
		if addr, _ := cfg.MetricsAddr(""); addr != "off" {
			opts.MetricsHandler = metrics.Temporal()
		}
		if opts.Interceptors, err = tracing.TemporalInterceptors(); err != nil {
			return nil, err
		}
		opts.ConnectionOptions.DialOptions = append(dial, grpc.WithConnectParams(reconnectParams))
		c, err := client.DialContext(ctx, opts)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("connect to Temporal at %s: %w", cfg.TemporalAddress, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func workerCmd() *cobra.Command {
	cfg := config.FromEnv()
	cmd := serverCmd("worker", "Run a worker on this Docker host against TEMPORAL_ADDRESS", func(ctx context.Context) error {
		return withTemporal(ctx, cfg, "worker", config.DefaultWorkerMetricsListen, func(c client.Client, log *zap.Logger) error {
			return worker.RunWorker(ctx, cfg, c, log, version)
		})
	})
	fs := cmd.Flags()
	serverFlags(fs, &cfg)
	temporalTLSFlags(fs, &cfg.TemporalTLS)
	fs.StringVar(&cfg.HostID, "host-id", cfg.HostID, "this host's id: its task queue is berth-host-<id> (BERTH_HOST_ID)")
	fs.StringVar(&cfg.HostAddr, "host-addr", cfg.HostAddr, "host:port gateways on other machines reach this host's sandboxes at, over TLS (BERTH_HOST_ADDR)")
	fs.StringVar(&cfg.Supervisor, "supervisor", cfg.Supervisor, "path of the berth-supervisor binary (BERTH_SUPERVISOR)")
	fs.StringVar(&cfg.DefaultImage, "default-image", cfg.DefaultImage, "sandbox image (BERTH_DEFAULT_IMAGE)")
	cmd.SetUsageFunc(serverUsage)
	return cmd
}

// withTemporal checks the secrets, sets up logging and a Temporal client
// for a production server command and runs it.
func withTemporal(ctx context.Context, cfg config.Config, role, metricsDefault string, run func(client.Client, *zap.Logger) error) error {
	if err := cfg.RequireSecrets(role == "gateway"); err != nil {
		return err
	}
	log := newLogger(false)
	defer log.Sync()
	stop, _, err := observe(ctx, cfg, "berth-"+role, metricsDefault, log)
	if err != nil {
		return err
	}
	defer stop()
	c, err := dialTemporal(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	return run(c, log)
}

func gatewayCmd() *cobra.Command {
	cfg := config.FromEnv()
	cmd := serverCmd("gateway", "Run the HTTP gateway against TEMPORAL_ADDRESS", func(ctx context.Context) error {
		return withTemporal(ctx, cfg, "gateway", config.DefaultMetricsListen, func(c client.Client, log *zap.Logger) error {
			ln, err := net.Listen("tcp", cfg.Listen)
			if err != nil {
				return err
			}
			backups, err := blobstore.OpenBackups(ctx, &cfg)
			if err != nil {
				return err
			}
			log.Info("gateway listening", zap.String("addr", ln.Addr().String()))
			return gateway.Run(ctx, cfg, c, backups, log, ln)
		})
	})
	fs := cmd.Flags()
	serverFlags(fs, &cfg)
	temporalTLSFlags(fs, &cfg.TemporalTLS)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "listen address (BERTH_LISTEN)")
	cmd.SetUsageFunc(serverUsage)
	return cmd
}

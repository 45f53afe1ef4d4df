package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/blobstore"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/supervisorbin"
	"github.com/berthdev/berth/worker"
	"github.com/berthdev/berth/workflows/contract"
)

// devOptions are the flags of `berth dev` beyond the configuration.
type devOptions struct {
	port, uiPort int  // the dev server's
	keepRunning  bool // leave running sandboxes running on exit
}

func devCmd() *cobra.Command {
	cfg := config.FromEnv()
	var o devOptions
	cmd := serverCmd("dev", "Start a local Temporal dev server, the worker and the gateway", func(ctx context.Context) error {
		return runDev(ctx, cfg, o)
	})
	fs := cmd.Flags()
	serverFlags(fs, &cfg)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "gateway listen address (BERTH_LISTEN)")
	fs.StringVar(&cfg.Supervisor, "supervisor", cfg.Supervisor, "path of the berth-supervisor binary (BERTH_SUPERVISOR)")
	fs.StringVar(&cfg.DefaultImage, "default-image", cfg.DefaultImage, "sandbox image (BERTH_DEFAULT_IMAGE)")
	fs.IntVar(&o.port, "temporal-port", 7233, "Temporal dev server port")
	fs.IntVar(&o.uiPort, "ui-port", 8233, "Temporal UI port")
	fs.BoolVar(&o.keepRunning, "keep-running", false, "leave running sandboxes running on exit instead of sleeping them")
	cmd.SetUsageFunc(serverUsage)
	return cmd
}

// runDev is the embedded default: a Temporal dev server as a child process,
// the worker and the gateway in this process. Ctrl-C sleeps the running
// sandboxes (their workspaces stay), then stops everything it started.
func runDev(ctx context.Context, cfg config.Config, o devOptions) error {
	if err := cfg.EnsureSecrets(); err != nil {
		return err
	}
	log := newLogger(true)
	defer log.Sync()

	cli, err := devserver.FindTemporalCLI(ctx, cfg.TemporalCLI, cfg.DataDir, os.Stderr)
	if err != nil {
		return err
	}
	if cfg.Supervisor, err = supervisorbin.Find(ctx, cfg.Supervisor, cfg.DataDir, os.Stderr); err != nil {
		return err
	}
	if err := ensureImage(ctx, cfg.DefaultImage); err != nil {
		return err
	}
	stopObserving, metricsAddr, err := observe(ctx, cfg, "berth", config.DefaultMetricsListen, log)
	if err != nil {
		return err
	}
	defer stopObserving()
	metricsURL := "off (BERTH_METRICS_LISTEN=off)"
	switch {
	case metricsAddr != "":
		metricsURL = "http://" + metricsAddr + "/metrics"
	case cfg.MetricsListen != "off":
		metricsURL = "not served: " + config.DefaultMetricsListen + " is taken (set BERTH_METRICS_LISTEN)"
	}
	// The dev server is supervised: if it dies it comes back on the same
	// database and ports, and the worker's and gateway's client reconnects.
	srv, err := devserver.Start(ctx, devserver.Options{CLI: cli, Dir: filepath.Join(cfg.DataDir, "temporal"),
		Port: o.port, UIPort: o.uiPort, Namespace: cfg.Namespace, Restart: true, Log: log.Named("temporal")})
	if err != nil {
		return err
	}
	defer srv.Stop()
	cfg.TemporalAddress = srv.Address()
	// The dev server speaks plaintext: TEMPORAL_TLS_* set for a production
	// worker in the same shell must not make berth dev dial it with TLS.
	cfg.TemporalTLS = config.TemporalTLS{}
	c, err := dialTemporal(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	url := "http://" + ln.Addr().String()
	if err := writeClientConfig(cfg.DataDir, url, cfg.Token); err != nil {
		return err
	}
	userConfig, err := writeUserClientConfig(url, cfg.Token)
	if err != nil {
		var foreign foreignConfigError
		if errors.As(err, &foreign) {
			log.Warn("left the user's client config alone: it names another gateway; the CLI finds this one from this directory, or with BERTH_URL and BERTH_TOKEN",
				zap.String("path", foreign.path), zap.String("names", foreign.url), zap.String("url", url))
		} else {
			log.Warn("could not write the client config to the user's config directory; the CLI finds the gateway only from here",
				zap.Error(err))
		}
		userConfig = filepath.Join(cfg.DataDir, "client.json")
	}

	backups, err := blobstore.OpenBackups(ctx, &cfg)
	if err != nil {
		return err
	}
	// The worker outlives the gateway on shutdown: it must carry out the
	// sleeps of the running sandboxes.
	workerCtx, stopWorker := context.WithCancel(context.Background())
	gatewayCtx, stopGateway := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errc := make(chan error, 2)
	wg.Add(2)
	cfg.DropWarmOnExit = !o.keepRunning // Ctrl-C leaves no container running
	if !cfg.DozeAfterSet {
		cfg.DozeAfter = config.DevDozeAfter // idle sandboxes freeze in place (BERTH_DOZE_AFTER=0: never)
	}
	go func() { defer wg.Done(); errc <- worker.RunWorker(workerCtx, cfg, c, log, version) }()
	go func() { defer wg.Done(); errc <- gateway.Run(gatewayCtx, cfg, c, backups, log, ln) }()

	fmt.Printf("\nBerth is running.\n  gateway:     %s\n  Temporal UI: %s\n  metrics:     %s\n  token:       %s\n  CLI config:  %s\n  (export BERTH_URL=%s BERTH_TOKEN=%s)\nCtrl-C stops it.\n\n",
		url, srv.UIAddress(), metricsURL, cfg.Token, userConfig, url, cfg.Token)

	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-errc:
	}
	stopGateway()
	if !o.keepRunning && runErr == nil {
		sleepRunning(c, cfg.Namespace, log)
	}
	stopWorker()
	wg.Wait()
	if runErr == nil {
		fmt.Println("Berth stopped; the next `berth dev` finds every sandbox as it was.")
	}
	return runErr
}

// sleepRunning puts every running or dozing sandbox to sleep so nothing of
// Berth's keeps running (or stays frozen) after `berth dev` exits; their
// workspaces stay, and the next start (or first command) wakes them.
func sleepRunning(c client.Client, namespace string, log *zap.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: namespace,
		Query: fmt.Sprintf("WorkflowType = '%s' AND BerthStatus IN ('%s', '%s') AND ExecutionStatus = 'Running'",
			contract.WorkflowType, contract.StatusRunning, contract.StatusDozing)})
	if err != nil {
		log.Warn("could not list running sandboxes to sleep them", zap.Error(err))
		return
	}
	var wg sync.WaitGroup
	for _, e := range resp.GetExecutions() {
		id := e.GetExecution().GetWorkflowId()
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Printf("sleeping %s...\n", id)
			h, err := c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: id, UpdateName: string(contract.OpSleep),
				WaitForStage: client.WorkflowUpdateStageCompleted})
			if err == nil {
				err = h.Get(ctx, nil)
			}
			if err != nil {
				log.Warn("sleep on shutdown failed", zap.String("sandbox", id), zap.Error(err))
			}
		}()
	}
	wg.Wait()
}

// ensureImage builds the default image with the repository's script when it
// is missing (the first `berth dev` on a machine). Only Berth's own images
// can be built that way; any other image must be pulled or built by the user.
func ensureImage(ctx context.Context, image string) error {
	rt, err := dockerrt.New()
	if err != nil {
		return err
	}
	defer rt.Close()
	if _, err := rt.Image(ctx, image); err == nil {
		return nil
	} else if !dockerrt.IsNotFound(err) {
		return fmt.Errorf("docker: %w", err)
	}
	kind := imageKind(image)
	if kind == "" {
		return fmt.Errorf("image %s is missing: pull or build it, or unset BERTH_DEFAULT_IMAGE to use berth/sandbox:latest", image)
	}
	root, err := supervisorbin.ModuleRoot()
	if err != nil {
		return fmt.Errorf("image %s is missing: build it with `task image` in the Berth source tree, or set BERTH_DEFAULT_IMAGE", image)
	}
	script := filepath.Join(root, "deploy", "images", "build.sh")
	fmt.Fprintf(os.Stderr, "image %s is missing; building it with %s %s (the first time takes about a minute)...\n", image, script, kind)
	cmd := exec.CommandContext(ctx, script, kind, image)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build image %s: %w", image, err)
	}
	return nil
}

// imageKind is the build.sh kind that builds image ("sandbox" or "test"),
// or "" for an image that is not one of Berth's.
func imageKind(image string) string {
	repo := image
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		repo = image[:i]
	}
	switch repo {
	case "berth/sandbox":
		return "sandbox"
	case "berth/test":
		return "test"
	}
	return ""
}

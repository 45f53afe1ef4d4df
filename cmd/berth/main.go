// Command berth runs Berth (`berth dev`, `berth worker`, `berth gateway`)
// and drives it from a terminal (`berth create`, `berth exec`, …).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// version is stamped by the build (-ldflags -X main.version=...).
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	root := newRootCmd()
	err := root.ExecuteContext(ctx)
	stop()
	os.Exit(exitCode(err))
}

// serverCmd wraps a server command whose flags the stdlib flag package
// parses (each also has a BERTH_* variable), so `berth dev -h` and every
// existing flag keep working as they did.
func serverCmd(use, short string, run func(context.Context, []string) error) *cobra.Command {
	return &cobra.Command{
		Use: use + " [flags]", Short: short, GroupID: "server",
		DisableFlagParsing: true, SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd.Context(), args) },
	}
}

func serverCommands() []*cobra.Command {
	return []*cobra.Command{
		serverCmd("dev", "Start a local Temporal dev server, the worker and the gateway", runDev),
		serverCmd("worker", "Run a worker on this Docker host against TEMPORAL_ADDRESS", runWorkerCmd),
		serverCmd("gateway", "Run the HTTP gateway against TEMPORAL_ADDRESS", runGatewayCmd),
		{
			Use: "version", Short: "Print the version", Args: cobra.NoArgs,
			Run: func(cmd *cobra.Command, _ []string) { fmt.Fprintln(cmd.OutOrStdout(), version) },
		},
	}
}

// exitError carries an exit code (the process's, for exec and wait)
// without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

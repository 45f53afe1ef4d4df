// Command berth runs Berth (`berth dev`, `berth worker`, `berth gateway`)
// and drives it from a terminal (`berth create`, `berth exec`, …).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
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

// exitError carries an exit code (the process's, for exec and wait)
// without printing anything more.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

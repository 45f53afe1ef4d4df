// Command berth runs Berth (`berth dev`, `berth worker`, `berth gateway`).
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

const usage = `berth: durable sandboxes for AI agents

Usage:
  berth dev       start a local Temporal dev server, the worker and the gateway
  berth worker    run a worker on this Docker host against TEMPORAL_ADDRESS
  berth gateway   run the HTTP gateway against TEMPORAL_ADDRESS
  berth version   print the version

Each command takes -h for its flags; every flag also has a BERTH_* variable.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "dev":
		err = runDev(ctx, args)
	case "worker":
		err = runWorkerCmd(ctx, args)
	case "gateway":
		err = runGatewayCmd(ctx, args)
	case "version", "--version":
		fmt.Println(version)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "berth: unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "berth:", err)
		os.Exit(1)
	}
}

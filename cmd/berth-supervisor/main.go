// Command berth-supervisor is PID 1 of every Berth sandbox container: it
// reaps zombies, forwards termination signals, and serves the process API
// (see package supervisor for the HTTP contract). The worker bind-mounts it
// read-only at /.berth/supervisor, so it must be static (CGO_ENABLED=0) and
// depend on nothing in the image.
package main

import (
	"fmt"
	"os"

	"github.com/berthdev/berth/supervisor"
)

func main() {
	cfg, err := supervisor.ConfigFromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := supervisor.Run(cfg, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

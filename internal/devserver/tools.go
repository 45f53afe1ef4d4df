package devserver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// TemporalCLIModule is the pinned Temporal CLI `berth dev` builds when none
// is installed (its server cannot share our go.mod, so it is a child process).
const TemporalCLIModule = "github.com/temporalio/cli/cmd/temporal@v1.5.1"

// FindTemporalCLI returns the Temporal CLI: explicit path, then PATH, then
// <dataDir>/bin/temporal, else it builds the pinned version there.
func FindTemporalCLI(ctx context.Context, explicit, dataDir string, progress io.Writer) (string, error) {
	if explicit != "" {
		return explicit, nil
	}
	if p, err := exec.LookPath("temporal"); err == nil {
		return p, nil
	}
	bin, err := filepath.Abs(filepath.Join(dataDir, "bin"))
	if err != nil {
		return "", err
	}
	target := filepath.Join(bin, "temporal")
	if _, err := os.Stat(target); err == nil {
		return target, nil
	}
	fmt.Fprintf(progress, "building the Temporal CLI (%s) into %s; the first time takes a few minutes...\n", TemporalCLIModule, bin)
	cmd := exec.CommandContext(ctx, "go", "install", TemporalCLIModule)
	cmd.Env = append(os.Environ(), "GOBIN="+bin)
	cmd.Stdout, cmd.Stderr = progress, progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build the Temporal CLI: %w (set BERTH_TEMPORAL_CLI to an installed one)", err)
	}
	return target, nil
}

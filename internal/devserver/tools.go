package devserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// FindSupervisor returns the supervisor binary: explicit path, then next to
// the running executable, then <dataDir>/bin, else it builds it from the
// Berth source tree the current directory is in.
func FindSupervisor(ctx context.Context, explicit, dataDir string, progress io.Writer) (string, error) {
	if explicit != "" {
		return filepath.Abs(explicit)
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "berth-supervisor")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	bin, err := filepath.Abs(filepath.Join(dataDir, "bin"))
	if err != nil {
		return "", err
	}
	target := filepath.Join(bin, "berth-supervisor")
	root, err := ModuleRoot()
	if err != nil {
		if _, statErr := os.Stat(target); statErr == nil {
			return target, nil
		}
		return "", fmt.Errorf("no supervisor binary: set BERTH_SUPERVISOR, put berth-supervisor next to berth, or run from the Berth source tree (%v)", err)
	}
	// Always rebuild from source: Go's build cache makes it cheap, and a
	// stale supervisor would not match this berth.
	fmt.Fprintf(progress, "building berth-supervisor into %s\n", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", target, "./cmd/berth-supervisor")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = progress, progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build berth-supervisor: %w", err)
	}
	return target, nil
}

// ModuleRoot finds the Berth module's root above the working directory
// (`berth dev` and the tests build from source there).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			line, _ := bufio.NewReader(f).ReadString('\n')
			f.Close()
			if strings.TrimSpace(line) == "module github.com/berthdev/berth" {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the Berth source tree")
		}
		dir = parent
	}
}

// Package supervisorbin finds the supervisor binary a worker mounts into
// every sandbox (and the Berth source tree it builds it from when there is
// none), for `berth worker`, `berth server` and `berth dev` alike.
package supervisorbin

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

// Find returns the supervisor binary: explicit path, then next to
// the running executable, then <dataDir>/bin, else it builds it from the
// Berth source tree the current directory is in.
func Find(ctx context.Context, explicit, dataDir string, progress io.Writer) (string, error) {
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

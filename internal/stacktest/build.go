package stacktest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	"github.com/berthdev/berth/internal/devserver"
)

func (s *Stack) build(ctx context.Context) error {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir == "" || built.root != s.root {
		dir, err := os.MkdirTemp("", "berth-stacktest-bin-")
		if err != nil {
			return err
		}
		bin, sup := filepath.Join(dir, "berth"), filepath.Join(dir, "berth-supervisor")
		if err := Build(ctx, s.root, bin, sup); err != nil {
			os.RemoveAll(dir)
			return err
		}
		if built.dir != "" {
			os.RemoveAll(built.dir)
		}
		built.dir, built.root, built.bin, built.sup = dir, s.root, bin, sup
	}
	built.stacks++
	for _, c := range [][2]string{{built.bin, s.Bin}, {built.sup, s.Supervisor}} {
		if err := copyFile(c[0], c[1]); err != nil {
			return err
		}
	}
	return nil
}

// built holds the binaries the first stack of a test process built; later
// stacks of the same process copy them (a link of berth takes seconds on a
// small machine, and a package's stacks all run the same source). The
// copies are the stacks' own: a test may replace its stack's supervisor.
// The directory goes when the last stack closes.
var built struct {
	mu                  sync.Mutex
	dir, root, bin, sup string
	stacks              int
}

// releaseBuilt is Close's half of build.
func releaseBuilt() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.stacks--; built.stacks <= 0 && built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.stacks = "", 0
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// Build builds berth into bin and berth-supervisor into supervisor from
// the module at root, the way every test stack runs them: berth with the
// fault switches (BERTH_FAULT_*, internal/faults) that production builds
// leave out.
func Build(ctx context.Context, root, bin, supervisor string) error {
	for _, b := range []struct{ out, pkg string }{{bin, "./cmd/berth"}, {supervisor, "./cmd/berth-supervisor"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "faults", "-o", b.out, b.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}

func (s *Stack) ensureImage(ctx context.Context) error {
	if _, err := s.Docker.Image(ctx, TestImage); err == nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.root, "deploy/images/build.sh"), "test", TestImage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", TestImage, err, out)
	}
	return nil
}

// temporalCLI finds the Temporal CLI the way `berth dev` does, building it
// into the repository's .berth/bin (shared across runs) when missing.
func temporalCLI(root string) (string, error) {
	if p := os.Getenv("BERTH_TEMPORAL_CLI"); p != "" {
		return p, nil
	}
	return devserver.FindTemporalCLI(context.Background(), "", filepath.Join(root, ".berth"), os.Stderr)
}

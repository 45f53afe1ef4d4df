package images

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/imagetest"
)

// `berth start` on a terminal shows the boot's image pull (bytes so far of
// the total) beside its spinner, as `berth exec` does on its own line.
// Driven in a tmux session of its own; everything the CLI wrote to the
// terminal is kept (pipe-pane), since the spinner's line is cleared once
// the start answers.
func TestStartShowsTheImagePullOnATerminal(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is needed for this test (apt-get install tmux)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	local := "berth/registry-test:progress-" + stack.HostID
	if err := imagetest.BuildDistinct(ctx, local, "progress", 64); err != nil {
		t.Fatal(err)
	}
	repo := reg.Host + "/progress-" + stack.HostID
	if _, err := reg.Push(ctx, local, strings.TrimPrefix(repo, reg.Host+"/")+":latest"); err != nil {
		t.Fatal(err)
	}
	imagetest.RemoveImage(ctx, local) // the start must pull it
	n := name("progress")
	create(t, ctx, n, repo+":latest")

	socket := fmt.Sprintf("berth-pull-%s", n)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", socket, "kill-server").Run() })
	tm := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
	}
	seen := filepath.Join(t.TempDir(), "terminal")
	done := filepath.Join(t.TempDir(), "done")
	tm("new-session", "-d", "-s", "pull", "-x", "160", "-y", "20",
		"env", "BERTH_URL="+stack.URL, "BERTH_TOKEN="+stack.Token, "TERM=xterm",
		"sh", "-c", stack.Bin+" start "+n+"; touch "+done+"; sleep 600")
	tm("pipe-pane", "-o", "-t", "pull", "cat >> "+seen)
	deadline := time.Now().Add(4 * time.Minute)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("berth start did not end")
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, _ := os.ReadFile(seen)
	if !strings.Contains(string(out), "pulling "+repo) || !strings.Contains(string(out), "MiB") {
		t.Fatalf("the terminal never showed the pull of %s; it showed:\n%q", repo, out)
	}
	if !strings.Contains(string(out), "is running") {
		t.Fatalf("berth start did not say the sandbox runs:\n%q", out)
	}
}

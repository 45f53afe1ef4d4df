package cluster

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTaskClusterAfterBerthDev runs task_cluster_test.sh: `berth dev`, then
// `task cluster`, in a clone under a private directory, as a new user does
// (the clone is of HEAD). Long (it brings a whole cluster up beside this
// package's): BERTH_TEST_CLUSTER=full.
func TestTaskClusterAfterBerthDev(t *testing.T) {
	if os.Getenv("BERTH_TEST_CLUSTER") != "full" {
		t.Skip("long cluster test: run with BERTH_TEST_CLUSTER=full (task test:cluster)")
	}
	if skipReason != "" {
		t.Skip(skipReason)
	}
	cmd := exec.Command(filepath.Join(".", "task_cluster_test.sh"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 77 {
		t.Skip("task_cluster_test.sh skipped")
	}
	if err != nil {
		t.Fatalf("task_cluster_test.sh: %v", err)
	}
}

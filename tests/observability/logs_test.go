package observability

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An operator follows one sandbox through the worker's JSON log: create,
// exec (its first boot), sleep, exec again (a wake: a second boot), sleep
// with a failing backup (fault injected: the sandbox's backups a file, as
// in the metrics test), so an activity logs a warning. Every
// line that names the sandbox, or its workflow, carries the same fields
// (sandbox, workflowId, and the bootId of the boot it is about), whoever
// wrote it: an activity, the workflow, the Temporal SDK, the host's
// egress or upkeep. Lines about no boot (a placement, a destroy) are
// the only ones without a boot id.
func TestWorkerLogLinesNameTheSandboxItsWorkflowAndBoot_FaultInjected(t *testing.T) {
	t.Parallel()
	s := startStack(t, "BERTH_LOG_FORMAT=json", "BERTH_LOG_LEVEL=debug")
	ctx := testCtx(t, 5*time.Minute)
	n := name(s, "logs")
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	sb := s.Client().Sandbox(n)
	run(t, ctx, sb, "true")
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	run(t, ctx, sb, "true") // wakes it: a second boot
	dir := filepath.Join(s.Dir, "data", "backups", n)
	require.DirExists(t, dir)
	require.NoError(t, os.Rename(dir, dir+".aside"))
	require.NoError(t, os.WriteFile(dir, []byte("not a directory"), 0o600))
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	require.NoError(t, os.Remove(dir))
	require.NoError(t, os.Rename(dir+".aside", dir))
	s.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)

	wf := "sandbox/" + n
	boots := map[string]bool{}
	var order []string // boot ids in the order lines name them
	var about, bootless []string
	sc := bufio.NewScanner(strings.NewReader(s.Logs("worker")))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, n) {
			continue
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "every worker line is JSON: %s", line)
		if !names(rec, n) {
			continue // another sandbox whose name n is a prefix of
		}
		about = append(about, line)
		require.Equal(t, n, rec["sandbox"], "sandbox: %s", line)
		require.Equal(t, wf, rec["workflowId"], "workflowId: %s", line)
		require.NotContains(t, rec, "WorkflowID", "the SDK's own field names are Berth's: %s", line)
		boot, _ := rec["bootId"].(string)
		if boot == "" {
			bootless = append(bootless, line)
			continue
		}
		if !boots[boot] {
			order = append(order, boot)
		}
		boots[boot] = true
		// A line about the first boot after one about the second names
		// the wrong boot (as the SDK's line scheduling the second Boot
		// did, given the first Boot's id).
		require.False(t, len(order) == 2 && boot == order[0], "a line names the first boot after the second began: %s", line)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, about, "no worker line names the sandbox")
	t.Logf("%d worker lines name the sandbox, %d of them no boot", len(about), len(bootless))
	require.Len(t, boots, 2, "one boot id per boot (create, wake): %v", boots)
	// The activity's warning about the failed backup names the boot it
	// stopped, and the run.
	failed := s.Grep("worker", "backup failed")
	require.Len(t, failed, 1)
	require.Contains(t, failed[0], `"bootId":"`+order[1]+`"`)
	require.Regexp(t, `"runId":"[0-9a-f-]{36}"`, failed[0])
	for _, line := range bootless {
		require.True(t, aboutNoBoot(line), "a line about a boot without its boot id: %s", line)
	}
}

// names says whether one of rec's values is sandbox n or its workflow.
func names(rec map[string]any, n string) bool {
	for _, v := range rec {
		if s, ok := v.(string); ok && (s == n || s == "sandbox/"+n || strings.Contains(s, "sandbox/"+n+" ") ||
			strings.HasSuffix(s, "sandbox/"+n)) {
			return true
		}
	}
	return false
}

// aboutNoBoot: the lines a sandbox's log may carry without a boot id are
// those about activities that act on no boot (placing it, resolving its
// image, destroying it, archiving its events) and the SDK's own debug
// trace of the workflow's other commands (side effects, timers), which
// it writes without the workflow's state (Berth's own workflow lines add
// the boot of the container up).
func aboutNoBoot(line string) bool {
	var rec map[string]any
	if json.Unmarshal([]byte(line), &rec) == nil && rec["logger"] == "temporal" && rec["level"] == "debug" &&
		rec["WorkflowType"] != nil && rec["ActivityType"] == nil {
		return true
	}
	for _, a := range []string{`"ActivityType":"Place"`, `"ActivityType":"ResolveImage"`, `"ActivityType":"Destroy"`,
		`"ActivityType":"ArchiveEvents"`, `"ActivityType":"HostLive"`} {
		if strings.Contains(line, a) {
			return true
		}
	}
	return false
}

package stacktest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/temporalproto"

	"github.com/berthdev/berth/internal/auth"
)

// WriteHistories saves every run of a workflow's continue-as-new chain,
// oldest first, as dir/prefix-1.json, dir/prefix-2.json, ... in the
// {"events": [...]} form the SDK's replayer reads (this is how the replay
// tests in workflows/ get their histories). Call it once the workflow is
// quiet (no update or activity in flight): a history cut mid-task replays
// but proves less. It refuses to write a history that holds this stack's
// secret, token or any supervisor token.
func (s *Stack) WriteHistories(ctx context.Context, workflowID, dir, prefix string) ([]string, error) {
	d, err := s.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
	if err != nil {
		return nil, err
	}
	var runs []*historypb.History
	for runID := d.WorkflowExecutionInfo.Execution.RunId; runID != ""; {
		h, err := s.history(ctx, workflowID, runID)
		if err != nil {
			return nil, err
		}
		runs = append([]*historypb.History{h}, runs...)
		runID = h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for i, h := range runs {
		if err := s.checkNoSecrets(h); err != nil {
			return nil, fmt.Errorf("%s run %d: %w", workflowID, i+1, err)
		}
		raw, err := temporalproto.CustomJSONMarshalOptions{Indent: " "}.Marshal(h)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.json", prefix, i+1))
		if err := os.WriteFile(p, append(raw, '\n'), 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func (s *Stack) history(ctx context.Context, workflowID, runID string) (*historypb.History, error) {
	h := &historypb.History{}
	it := s.Temporal.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, err
		}
		h.Events = append(h.Events, ev)
	}
	if len(h.Events) == 0 {
		return nil, fmt.Errorf("workflow %s run %s has no history", workflowID, runID)
	}
	return h, nil
}

// bootIDInText finds boot ids in a history's text form, where payload bytes
// show as strings with escaped quotes.
var bootIDInText = regexp.MustCompile(`bootId\\?"\s*:\s*\\?"([^"\\]+)`)

func (s *Stack) checkNoSecrets(h *historypb.History) error {
	text := h.String()
	secrets := []string{s.Secret, s.Token}
	for _, m := range bootIDInText.FindAllStringSubmatch(text, -1) {
		secrets = append(secrets, auth.SupervisorToken(s.Secret, m[1]))
	}
	for _, secret := range secrets {
		if secret != "" && strings.Contains(text, secret) {
			return fmt.Errorf("a secret (%.6s...) appears in the history", secret)
		}
	}
	return nil
}

// WaitQuiet waits until the workflow's current run has no activity and no
// workflow task pending, so that a history written next ends on a completed
// task (e.g. after a destroy, once the cancelled container watch is gone).
func (s *Stack) WaitQuiet(ctx context.Context, workflowID string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		d, err := s.Temporal.DescribeWorkflowExecution(ctx, workflowID, "")
		if err != nil {
			return err
		}
		if len(d.PendingActivities) == 0 && d.PendingWorkflowTask == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s still has %d pending activities or a workflow task after %s",
				workflowID, len(d.PendingActivities), timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

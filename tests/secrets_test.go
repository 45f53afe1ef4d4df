package tests

import (
	"context"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/internal/auth"
)

// secretValues are values tests tried to put into sandboxes; none may reach
// any workflow history (history is forever).
var secretValues = []string{
	"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
	"ghp_R8x2nKq7Lm4Pz9Tw1Yv6Bc3Df5Gh0Jk2Ms8N",
	"AKIAIOSFODNN7EXAMPLE",
	"-----BEGIN OPENSSH PRIVATE KEY-----",
}

func TestSecretMaterialIsRejectedBeforeHistory(t *testing.T) {
	t.Parallel()
	n := name(t, "sec")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "env": map[string]string{"TOKEN": "getSecret(github)"}})
	for _, v := range secretValues {
		r := stack.Do(t, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"KEY": v}})
		require.Equal(t, 400, r.Status, "value %.8s... must be rejected", v)
		require.NotContains(t, string(r.Body), v, "the error never echoes the value")
		r = stack.Do(t, "POST", "/v1/sandboxes", map[string]any{"name": n + "-x", "env": map[string]any{"KEY": v}})
		require.Equal(t, 400, r.Status)
	}
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

var bootIDRE = regexp.MustCompile(`"bootId":"([^"]+)"`)

// checkHistoriesHoldNoSecrets reads every workflow history of the run and
// looks for the server secret, the gateway token, every supervisor token
// and the secret values tests tried to set. Called from TestMain after all
// tests.
func checkHistoriesHoldNoSecrets() error {
	ctx := context.Background()
	var texts []string
	var token []byte
	for {
		resp, err := stack.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{NextPageToken: token})
		if err != nil {
			return err
		}
		for _, e := range resp.Executions {
			var b strings.Builder
			it := stack.Temporal.GetWorkflowHistory(ctx, e.Execution.WorkflowId, e.Execution.RunId, false, 0)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					return err
				}
				b.WriteString(ev.String())
				fmt.Fprintf(&b, "%s", ev.GetWorkflowPropertiesModifiedEventAttributes().GetUpsertedMemo().String())
			}
			texts = append(texts, decodePayloadText(b.String()))
		}
		if token = resp.NextPageToken; len(token) == 0 {
			break
		}
	}
	all := strings.Join(texts, "\n")
	secrets := append([]string{stack.Secret, stack.Token}, secretValues...)
	for _, m := range bootIDRE.FindAllStringSubmatch(all, -1) {
		secrets = append(secrets, auth.SupervisorToken(stack.Secret, m[1]))
	}
	for _, s := range secrets {
		if strings.Contains(all, s) {
			return fmt.Errorf("a secret (%.6s...) appears in workflow history", s)
		}
	}
	// A whole run always makes workflows, so none means the check read
	// nothing; a run narrowed with -run may make none, and that is fine.
	if len(texts) == 0 && flag.Lookup("test.run").Value.String() == "" {
		return fmt.Errorf("no workflow histories to check")
	}
	return nil
}

// decodePayloadText makes payload bytes (shown escaped by String()) readable
// so JSON fields like "bootId" can be found.
func decodePayloadText(s string) string { return strings.ReplaceAll(s, `\"`, `"`) }

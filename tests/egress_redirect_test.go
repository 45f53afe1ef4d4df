package tests

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/netguard"
	"github.com/berthdev/berth/workflows/contract"
)

// A boot only updates the address sets of the worker's redirect table
// (the table itself was installed at the worker's start). If the table
// is gone meanwhile (someone flushed the host's rules), the boot installs
// it whole, with every running sandbox: the new sandbox is redirected
// before its start answers, and so is the one that ran before, without
// waiting for the periodic repair.
func TestABootInstallsARemovedRedirectTableWhole(t *testing.T) {
	table := netguard.RedirectTable(stack.HostID)
	listed := func() string {
		out, err := exec.Command("nft", "list", "table", "inet", table).CombinedOutput()
		if err != nil {
			return ""
		}
		return string(out)
	}
	first := name(t, "redir1")
	newSandbox(t, first, map[string]any{"keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+first+"/start", nil)
	firstIP := containerIP(t, stack, first)
	require.Contains(t, listed(), firstIP, "the running sandbox is in the redirect table")

	require.NoError(t, netguard.RemoveRedirect(table))
	require.Empty(t, listed())

	second := name(t, "redir2")
	newSandbox(t, second, map[string]any{"keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+second+"/start", nil)
	text := listed()
	require.NotEmpty(t, text, "the boot after the removal installed the table again")
	sources := text[strings.Index(text, "set sources"):]
	sources = sources[:strings.Index(sources, "}")]
	require.Contains(t, sources, containerIP(t, stack, second))
	require.Contains(t, sources, firstIP, "the whole table: the sandbox that ran before is redirected again too")
	require.Contains(t, text, "redirect to :", "with its rules")
	require.Equal(t, 1, bootAttempts(t, second), "the boot went through at once, not after a failed attempt and the periodic repair")
}

// bootAttempts is the attempt on which sandbox's last Boot activity
// started (1: it did not fail before).
func bootAttempts(t *testing.T, sandbox string) int {
	t.Helper()
	boots := map[int64]bool{}
	attempt := 0
	for _, ev := range sandboxHistory(t, stack, sandbox) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == contract.ActivityBoot {
			boots[ev.GetEventId()] = true
		}
		if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && boots[a.GetScheduledEventId()] {
			attempt = int(a.GetAttempt())
		}
	}
	require.NotZero(t, attempt, "no Boot activity in the history of %s", sandbox)
	return attempt
}

package workflows

import (
	"strings"
	"testing"

	"github.com/berthdev/berth/workflows/contract"
)

// TestCurrentDetailsSayDestroyedFirst: the Temporal UI calls an open
// workflow Running; a destroyed sandbox's details must say otherwise on
// their first line, and every status must name itself and the last event.
func TestCurrentDetailsSayDestroyedFirst(t *testing.T) {
	st := &contract.State{Config: contract.Config{Name: "demo", InstanceType: "basic"}, Status: contract.StatusDestroyed,
		Host: "h1", LastEvent: "destroyed"}
	first, _, _ := strings.Cut(currentDetails(st), "\n")
	if !strings.HasPrefix(first, "**destroyed**") || !strings.Contains(first, "not running") {
		t.Fatalf("first line %q does not say destroyed and not running", first)
	}
	st.Status, st.LastEvent, st.Container = contract.StatusRunning, "started", &contract.Container{BootID: "b1"}
	d := currentDetails(st)
	for _, want := range []string{"**running** (boot b1)", "**last event:** started", "**host:** h1", "demo (basic)"} {
		if !strings.Contains(d, want) {
			t.Fatalf("details %q lack %q", d, want)
		}
	}
	if strings.Contains(d, "destroyed") {
		t.Fatalf("a running sandbox's details mention destroyed: %q", d)
	}
}

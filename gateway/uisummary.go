package gateway

// What the Temporal UI shows of a sandbox's workflow besides its history.
// A summary is fixed when the workflow starts, and a destroyed sandbox's
// workflow stays open (the name's tombstone), which the UI lists as
// Running: so the summary points at the current details, which the
// workflow keeps to its status and last event (workflows/events.go).

func uiSummary(name, instanceType string) string {
	return "Berth sandbox " + name + " (" + instanceType + "): its status is in Current Details, not the workflow's Running"
}

const uiDetails = "A Berth sandbox. The workflow runs for the sandbox's whole life and after it: " +
	"a destroyed sandbox's workflow stays open as the tombstone that keeps its name from reuse. " +
	"**Current Details** show the sandbox's status (created, running, stopped, destroyed…), its last event and its host; " +
	"the search attributes `BerthStatus` and `BerthHost` say the same for `temporal workflow list --query`."

package activities

import (
	"testing"

	"go.temporal.io/sdk/testsuite"
)

// TestActivitiesRegister: the worker registers every exported method of
// Activities as an activity, and the SDK panics at the worker's start on
// one whose signature an activity cannot have (as RescueVolume did while
// it was a method).
func TestActivitiesRegister(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	s.NewTestActivityEnvironment().RegisterActivity(&Activities{})
}

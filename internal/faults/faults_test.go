package faults

import "testing"

// A build without the tag ignores every switch; one with it reads them.
func TestSwitchesOnlyWithTheTag(t *testing.T) {
	t.Setenv("BERTH_FAULT_SOMETHING", "1")
	if got := Get("SOMETHING"); (got == "1") != enabled {
		t.Fatalf("Get = %q in a build with faults %v", got, enabled)
	}
}

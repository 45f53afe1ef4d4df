//go:build faults

// Package faults is fault injection for the integration tests: the
// switches are read from BERTH_FAULT_<NAME> only in binaries built with
// `-tags faults` (the test stacks' berth, internal/stacktest.Build).
// Production builds compile the stub in nofaults.go, so no environment
// variable can make a deployed worker crash on purpose or skip its work.
package faults

import "os"

// Get is the value of BERTH_FAULT_<name> ("" when unset).
func Get(name string) string { return os.Getenv("BERTH_FAULT_" + name) }

// enabled says this build reads the switches.
const enabled = true

package tests

import (
	"fmt"
	"net/http"
	"os"

	"github.com/berthdev/berth/internal/stacktest"
)

// useSpecCheckingClient routes the tests' raw HTTP requests through the
// transport that checks every answer against schemas/openapi.yaml (the Go
// SDK clients get it from Stack.Client).
func useSpecCheckingClient() { http.DefaultClient = stacktest.HTTPClient() }

// specViolations reports, after the run, the (route, status) pairs seen and
// every answer the spec does not describe; it returns how many there were.
// BERTH_SPEC_PAIRS=1 lists the pairs too.
func specViolations() int {
	pairs, bad := stacktest.SpecReport()
	fmt.Fprintf(os.Stderr, "openapi: %d distinct (route, status) pairs checked against schemas/openapi.yaml\n", len(pairs))
	if os.Getenv("BERTH_SPEC_PAIRS") != "" {
		for _, p := range pairs {
			fmt.Fprintln(os.Stderr, "  ", p)
		}
	}
	for _, v := range bad {
		fmt.Fprintln(os.Stderr, "FAIL: openapi mismatch:", v)
	}
	return len(bad)
}

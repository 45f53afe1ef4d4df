package stacktest

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// Main is the TestMain of an integration package that shares one stack:
// it starts the stack with o, hands it to set, runs the tests, fails the
// run on any answer schemas/openapi.yaml does not describe, prints the
// worker's and gateway's logs when anything failed, removes the stack and
// exits.
func Main(m *testing.M, o Options, set func(*Stack)) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	s, err := Start(ctx, o)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start the Berth stack:", err)
		os.Exit(1)
	}
	set(s)
	code := m.Run()
	pairs, bad := SpecReport()
	fmt.Fprintf(os.Stderr, "openapi: %d distinct (route, status) pairs checked against schemas/openapi.yaml\n", len(pairs))
	for _, v := range bad {
		fmt.Fprintln(os.Stderr, "FAIL: an answer schemas/openapi.yaml does not describe:", v)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "--- worker log ---\n%s\n--- gateway log ---\n%s\n", s.Logs("worker"), s.Logs("gateway"))
	}
	s.Close()
	os.Exit(code)
}

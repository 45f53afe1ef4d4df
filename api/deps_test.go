package api_test

import (
	"os/exec"
	"strings"
	"testing"
)

// Package api is imported by every client of the API, the public Go SDK
// included: it must link nothing but the standard library.
func TestStandardLibraryOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/berthdev/berth/api" {
			t.Errorf("package api depends on %s, which is not in the standard library", p)
		}
	}
}

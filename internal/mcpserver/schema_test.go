package mcpserver

import (
	"regexp"
	"strings"
	"testing"

	"github.com/berthdev/berth/api"
)

// The tools' schema refuses exactly the names the gateway refuses, so a
// model learns of a bad name from the schema and never from a 400.
func TestSandboxNamePatternIsTheAPIRule(t *testing.T) {
	re := regexp.MustCompile(sandboxNamePattern)
	for _, n := range []string{"a", "demo", "user-123", "0", "a-", "-a", "A", "a_b", "a.b", "a/b", "", " a",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "é"} {
		if got, want := re.MatchString(n), api.ValidSandboxName(n); got != want {
			t.Errorf("%q: pattern says %v, api.ValidSandboxName %v", n, got, want)
		}
	}
}

package statstests

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"
)

// berth runs the CLI against the stack and returns its stdout.
func berth(t testing.TB, args ...string) string {
	t.Helper()
	cmd := exec.Command(stack.Bin, args...)
	cmd.Env = append(os.Environ(), "BERTH_URL="+stack.URL, "BERTH_TOKEN="+stack.Token)
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("berth %v: %v\n%s%s", args, err, out, stderr)
	}
	return string(out)
}

func decodeJSON(t testing.TB, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
}

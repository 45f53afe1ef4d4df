package upkeep

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/berthdev/berth/internal/hosts"
)

func TestCRIUCheckAbsent(t *testing.T) {
	r := runCRIUCheck(context.Background(), "criu-not-installed-here")
	if r.State != hosts.CRIUAbsent {
		t.Fatalf("got %+v, want absent", r)
	}
}

// A stand-in criu that fails its check as CRIU 3.17 does on this
// machine's kernel: the result says failing, with criu's verdict.
func TestCRIUCheckFailing_FaultInjected(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "criu")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Version: 3.17.1'; exit 0; fi\n" +
		"echo 'Warn  (criu/kerndat.c:1150): CRIU was built without libnftables support'\n" +
		"echo 'Error (criu/vdso.c:381): vdso: Unexpected rt vDSO area bounds' >&2\n" +
		"echo 'Error (criu/crtools.c:260): Could not initialize kernel features detection.' >&2\nexit 1\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCRIUCheck(context.Background(), bin)
	if r.State != hosts.CRIUFailing || r.Version != "Version: 3.17.1" || r.Detail != "Error (criu/vdso.c:381): vdso: Unexpected rt vDSO area bounds" {
		t.Fatalf("got %+v", r)
	}
}

// The host's own criu, when installed: a version and a verdict either way.
func TestCRIUCheckOnThisHost(t *testing.T) {
	r := runCRIUCheck(context.Background(), "criu")
	if r.State == hosts.CRIUAbsent {
		t.Skip("criu is not installed")
	}
	t.Logf("criu on this host: %+v", r)
	if r.Version == "" || r.Detail == "" {
		t.Fatalf("got %+v, want a version and a verdict", r)
	}
}

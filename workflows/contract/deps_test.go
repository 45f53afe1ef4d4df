package contract_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The contract exists so that whoever only talks to a sandbox workflow (an
// example agent, an SDK user, the gateway) does not link Docker or the S3
// SDK, which only the worker's activities need. This is what `go list -deps`
// shows; the test keeps it so.
func TestContractUsersLinkNeitherDockerNorAWS(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	check := func(heavy []string, pkgs ...string) {
		t.Helper()
		out, err := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...).Output()
		if err != nil {
			t.Fatalf("go list -deps %v: %v", pkgs, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, h := range heavy {
				if strings.Contains(dep, h) {
					t.Errorf("%v depend on %s", pkgs, dep)
				}
			}
		}
	}
	both := []string{"github.com/docker/docker", "github.com/aws/aws-sdk-go-v2"}
	// The gateway lists backups through a blob.Store its assembly opened
	// (internal/blobstore), so it links neither either.
	check(both, "github.com/berthdev/berth/workflows/...", "github.com/berthdev/berth/examples/...",
		"github.com/berthdev/berth/client/...", "github.com/berthdev/berth/gateway")
}

package supervisor_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/berthdev/berth/supervisor/supervisortest"
)

func TestRefusesToStartWithoutToken(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "token")
	out, err := (&execCmd{bin: supervisorBin, env: []string{"BERTH_SUPERVISOR_TOKEN_FILE=" + missing}}).run()
	if err == nil || !strings.Contains(out, "the supervisor token is required") {
		t.Fatalf("want refusal, got err=%v out=%s", err, out)
	}
}

// A token in the environment would stay readable in /proc/1/environ.
func TestRefusesTokenInEnvironment(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	os.WriteFile(file, []byte("file-token"), 0o400)
	out, err := (&execCmd{bin: supervisorBin, env: []string{
		"BERTH_SUPERVISOR_TOKEN=env-token", "BERTH_SUPERVISOR_TOKEN_FILE=" + file,
	}}).run()
	if err == nil || !strings.Contains(out, "BERTH_SUPERVISOR_TOKEN must not be set") {
		t.Fatalf("want refusal, got err=%v out=%s", err, out)
	}
}

// The token file is gone once the supervisor serves, and the token it held
// is the one that authenticates.
func TestTokenFileIsRemovedAtStart(t *testing.T) {
	inst := supervisortest.Start(t, supervisorBin, supervisortest.Options{Token: "tok-" + t.Name()})
	if _, err := os.Stat(inst.TokenFile); !os.IsNotExist(err) {
		t.Fatalf("token file still there: %v", err)
	}
	req, _ := http.NewRequest("GET", inst.URL+"/v1/health", nil)
	req.Header.Set("Authorization", "Bearer "+inst.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health with the file's token: %d", resp.StatusCode)
	}
}

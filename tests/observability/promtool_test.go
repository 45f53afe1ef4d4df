package observability

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// deploy/observability's Prometheus configuration and alert rules are
// what Prometheus accepts (Debian's prometheus package's promtool), the
// configuration with targets files shaped as targets.example.yml, and the
// alerts fire on what they name (alerts_test.yml, promtool test rules).
func TestPrometheusConfigAndRulesPassPromtool(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed (apt-get install prometheus)")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "deploy", "observability"))
	require.NoError(t, err)
	// The configuration as deployed: beside its rules and targets files.
	deployed := t.TempDir()
	example, err := os.ReadFile(filepath.Join(dir, "targets.example.yml"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(deployed, "targets"), 0o755))
	for _, f := range []string{"gateways.yml", "workers.yml", "temporal.yml"} {
		require.NoError(t, os.WriteFile(filepath.Join(deployed, "targets", f), example, 0o644))
	}
	for _, f := range []string{"prometheus.yml", "alerts.yml"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(deployed, f), b, 0o644))
	}
	for _, c := range []struct {
		dir  string
		args []string
	}{
		{deployed, []string{"check", "config", "prometheus.yml"}},
		{dir, []string{"check", "rules", "alerts.yml"}},
		{dir, []string{"test", "rules", "alerts_test.yml"}},
	} {
		cmd := exec.Command(promtool, c.args...)
		cmd.Dir = c.dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "promtool %v:\n%s", c.args, out)
		require.NotContains(t, string(out), "WARNING", "promtool %v", c.args)
		t.Logf("promtool %v:\n%s", c.args, out)
	}
}

package observability

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// A worker with a warm pool shows it: the pool's size per instance type,
// and a start that claims a warm container counts as a warm boot and a
// claim; the pool then fills again. The running sandbox is counted by
// state and type, and a terminal attached to it shows while it is open.
func TestWarmClaimAndTerminalMetrics(t *testing.T) {
	t.Parallel()
	s := startStack(t, "BERTH_WARM_POOL=basic=1")
	ready := func() (bool, string) {
		f := scrape(t, s.MetricsURL("worker"))
		v := f.value("berth_warm_pool_size", map[string]string{"instance_type": "basic"})
		return v == 1, fmt.Sprint("warm basic containers: ", v)
	}
	stacktest.WaitFor(t, 3*time.Minute, "a warm basic container", ready)
	before := scrape(t, s.MetricsURL("worker"))

	n := name(s, "warm")
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "basic"})
	s.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	t.Cleanup(func() { s.Do(t, "DELETE", "/v1/sandboxes/"+n, nil) })

	after := scrape(t, s.MetricsURL("worker"))
	warm := map[string]string{"op": "boot", "kind": "warm", "outcome": "ok"}
	require.Equal(t, 1.0, after.value("berth_lifecycle_operations_total", warm)-before.value("berth_lifecycle_operations_total", warm))
	require.Equal(t, 1.0, after.value("berth_warm_pool_claims_total", nil)-before.value("berth_warm_pool_claims_total", nil))
	require.Zero(t, after.value("berth_warm_pool_misses_total", nil)-before.value("berth_warm_pool_misses_total", nil))
	// The host's next announcement counts its sandboxes by state and type.
	stacktest.WaitFor(t, time.Minute, "the running sandbox counted", func() (bool, string) {
		f := scrape(t, s.MetricsURL("worker"))
		v := f.value("berth_sandboxes", map[string]string{"status": "running", "instance_type": "basic", "host": s.HostID})
		return v == 1, fmt.Sprint("running basic sandboxes: ", v)
	})
	stacktest.WaitFor(t, 3*time.Minute, "the pool filled again", ready)

	ctx := testCtx(t, 2*time.Minute)
	term, err := s.Client().Sandbox(n).CreateTerminal(ctx, client.TerminalOptions{Cols: 80, Rows: 24})
	require.NoError(t, err)
	conn, err := term.Connect(ctx, "", 0, 0)
	require.NoError(t, err)
	terminals := func(want float64) func() (bool, string) {
		return func() (bool, string) {
			v := scrape(t, s.MetricsURL("gateway")).value("berth_terminals_open", nil)
			return v == want, fmt.Sprint("terminals open: ", v)
		}
	}
	stacktest.WaitFor(t, 30*time.Second, "the open terminal counted", terminals(1))
	require.NoError(t, conn.Close())
	stacktest.WaitFor(t, 30*time.Second, "the closed terminal gone from the count", terminals(0))
}

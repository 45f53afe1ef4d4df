// Package chaos is Berth's randomised fault test: a seeded driver runs a
// mix of operations on several sandboxes through the public Go client
// while a fault loop kills and restarts the worker, the gateway and the
// Temporal dev server, cuts and slows the backup store and pauses
// containers; afterwards the invariants of "nothing acknowledged is lost,
// nothing is left behind" are checked and printed as figures. Each
// failure prints the seed that reproduces the run's operations and
// faults (their timing is the machine's).
//
// It runs with BERTH_TEST_CHAOS=1 (task chaos); BERTH_CHAOS_SEED,
// BERTH_CHAOS_DURATION (default 2m) and BERTH_CHAOS_FAULT_EVERY (default
// 8s) tune it.
package chaos

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/s3test"
	"github.com/berthdev/berth/internal/stacktest"
)

func TestChaos(t *testing.T) {
	if os.Getenv("BERTH_TEST_CHAOS") == "" {
		t.Skip("the chaos run: BERTH_TEST_CHAOS=1 (task chaos)")
	}
	runChaos(t, suite{gate: "BERTH_TEST_CHAOS", title: "chaos", prefix: "chaos",
		duration: 2 * time.Minute, every: 8 * time.Second, faultEvery: "a fault about every", start: startLocal})
}

// startLocal starts the dev stack with its backup store behind a proxy
// the faults can cut and slow, and every fault kind against it.
func startLocal(t *testing.T, e runEnv) *rig {
	srv := s3test.Start(t) // sets the AWS and BERTH_S3_ENDPOINT env the children inherit
	proxy := startStoreProxy(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	t.Setenv("BERTH_S3_ENDPOINT", "http://"+proxy.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	st, err := stacktest.Start(ctx, stacktest.Options{Env: []string{"BERTH_BACKUP_URL=" + srv.URL, "BERTH_WARM_POOL=lite=1",
		"BERTH_CONTINUE_AS_NEW_AFTER=40"}})
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	c := client.New(st.URL, st.Token, client.WithHTTPClient(stacktest.HTTPClient()))
	disk := &diskFault{c: c, name: e.prefix + "-disk", codes: map[string]int{}}
	return &rig{
		c:      c,
		tc:     st.Temporal,
		hosts:  []dockerHost{{st.HostID, st.DockerAPI}},
		faults: &faults{st: st, proxy: proxy, rnd: e.rnd, log: e.log, disk: disk},
		kinds:  faultKinds,
		disk:   disk,
		logs: func() {
			t.Logf("--- worker log ---\n%s\n--- gateway log ---\n%s", st.Logs("worker"), st.Logs("gateway"))
		},
	}
}

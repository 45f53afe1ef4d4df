package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	dockerclient "github.com/docker/docker/client"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/clustertest"
	"github.com/berthdev/berth/internal/stacktest"
)

const faultKillNode = "kill-node"

// TestChaosCluster is the chaos run on the production layout
// (internal/clustertest: PostgreSQL, three Temporal nodes, mutual TLS, a
// worker and two gateways): the driver's operations go on while the fault
// loop SIGKILLs a random Temporal node and starts it again after a seeded
// hold, one node at a time, so the cluster always keeps two. Nothing but
// Temporal is killed: what this run adds to TestChaos is a node's shards
// and task queues moving to the others and back under traffic. The same
// invariants are checked and printed. BERTH_TEST_CHAOS_CLUSTER=1 (task
// chaos:cluster); BERTH_CHAOS_SEED, BERTH_CHAOS_DURATION (default 5m),
// BERTH_CHAOS_FAULT_EVERY (default 30s) as for TestChaos.
func TestChaosCluster(t *testing.T) {
	if os.Getenv("BERTH_TEST_CHAOS_CLUSTER") == "" {
		t.Skip("the chaos run on the three-node cluster: BERTH_TEST_CHAOS_CLUSTER=1 (task chaos:cluster)")
	}
	root, tools, pgBin, missing := clustertest.FindTools()
	if len(missing) > 0 {
		t.Fatal("the cluster needs: " + strings.Join(missing, "; "))
	}
	seed := envSeed(t)
	duration := envDuration(t, "BERTH_CHAOS_DURATION", 5*time.Minute)
	every := envDuration(t, "BERTH_CHAOS_FAULT_EVERY", 30*time.Second)
	t.Logf("chaos (cluster) seed %d (rerun: BERTH_TEST_CHAOS_CLUSTER=1 BERTH_CHAOS_SEED=%d), %s, a Temporal node killed about every %s", seed, seed, duration, every)
	defer func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d: rerun with BERTH_TEST_CHAOS_CLUSTER=1 BERTH_CHAOS_SEED=%d", seed, seed)
		}
	}()

	setupStart := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	// The guard is off, as in tests/cluster: this run is about Temporal,
	// and the guard's host-wide nftables tables are TestChaos's to cover
	// (egress changes are refused with EGRESS_UNAVAILABLE here). The host
	// counts generous capacity: against the cluster the driver runs
	// operations fast enough to create about 80 sandboxes in five minutes,
	// more than this machine's two cores count for, and the checks' wakes
	// were then refused NO_CAPACITY until their deadline.
	cl, err := clustertest.Start(ctx, root, tools, pgBin, "BERTH_CONTINUE_AS_NEW_AFTER=40", "BERTH_NETGUARD=off", "BERTH_WARM_POOL=lite=1",
		"BERTH_HOST_CPUS=256", "BERTH_HOST_MEMORY=1TiB")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	tc, err := cl.Dial(ctx)
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	dockerAPI, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dockerAPI.Close() })
	t.Logf("cluster up in %s", time.Since(setupStart).Round(time.Second))
	c := client.New(cl.GatewayURLs[0], cl.Token, client.WithHTTPClient(stacktest.HTTPClient()))

	logf := func(format string, args ...any) {
		t.Logf("%s "+format, append([]any{time.Now().Format("15:04:05.0")}, args...)...)
	}
	d := &driver{c: c, rnd: rand.New(rand.NewPCG(seed, 1)), prefix: fmt.Sprintf("chaosc-%d", seed%100000), log: logf,
		ops: map[string]int{}, acked: map[string]int{}, codes: map[string]int{}}
	nk := &nodeKills{cl: cl, rnd: rand.New(rand.NewPCG(seed, 2)), log: logf, count: map[string]int{}}

	runCtx, stopRun := context.WithTimeout(context.Background(), duration)
	faultsDone := make(chan struct{})
	go func() { defer close(faultsDone); nk.run(runCtx, every) }()
	steps := 0
	for runCtx.Err() == nil {
		d.step(context.Background())
		if steps++; steps%100 == 0 {
			logf("%d operations", steps)
		}
	}
	stopRun()
	<-faultsDone
	logf("ran %d operations; faults stopped, settling", steps)
	d.bg.Wait()

	v := check(t, tc, []dockerHost{{cl.HostID, dockerAPI}}, c, d, time.Time{})
	v = append(v, nk.problems...)
	v = append(v, d.logGaps...)
	for _, u := range d.undoc {
		v = append(v, "undocumented error code: "+u)
	}
	_, spec := stacktest.SpecReport()
	for _, s := range spec {
		v = append(v, "not as the spec says: "+s)
	}
	report(t, seed, d, &faults{count: nk.count}, v)
	if len(v) > 0 {
		t.Errorf("%d invariant violations (seed %d):\n  %s", len(v), seed, strings.Join(v, "\n  "))
	}
	if t.Failed() {
		for _, n := range []string{"worker", "gateway1", "node1", "node2", "node3"} {
			t.Log(cl.LogTail(n))
		}
	}
}

// nodeKills SIGKILLs one Temporal node at a time, as a crash or a lost
// machine would, and starts it again after a seeded hold: from a couple of
// seconds (back before membership declared it faulty) to half a minute
// (its shards and task queues taken over by the others, then handed back).
type nodeKills struct {
	cl  *clustertest.Cluster
	rnd *rand.Rand
	log func(format string, args ...any)

	mu       sync.Mutex
	count    map[string]int
	problems []string
}

func (k *nodeKills) run(ctx context.Context, every time.Duration) {
	for {
		wait := every/2 + time.Duration(k.rnd.Int64N(int64(every)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		i := k.rnd.IntN(len(clustertest.NodeIPs))
		hold := time.Duration(2+k.rnd.IntN(29)) * time.Second
		k.log("fault: %s node%d (%s) for %s", faultKillNode, i+1, clustertest.NodeIPs[i], hold)
		k.mu.Lock()
		k.count[faultKillNode]++
		k.mu.Unlock()
		k.cl.KillNode(i)
		time.Sleep(hold)
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		err := k.cl.StartNode(sctx, i)
		cancel()
		if err != nil {
			k.mu.Lock()
			k.problems = append(k.problems, fmt.Sprintf("Temporal node %d did not come back: %v", i+1, err))
			k.mu.Unlock()
			return
		}
	}
}

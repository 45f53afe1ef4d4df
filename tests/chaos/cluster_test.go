package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
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
	runChaos(t, suite{gate: "BERTH_TEST_CHAOS_CLUSTER", title: "chaos (cluster)", prefix: "chaosc",
		duration: 5 * time.Minute, every: 30 * time.Second, faultEvery: "a Temporal node killed about every",
		start: func(t *testing.T, e runEnv) *rig { return startCluster(t, e, root, tools, pgBin) }})
}

// startCluster starts the three-node cluster and kills its Temporal nodes.
func startCluster(t *testing.T, e runEnv, root, tools, pgBin string) *rig {
	setupStart := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
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
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	tc, err := cl.Dial(ctx)
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
	return &rig{
		c:      client.New(cl.GatewayURLs[0], cl.Token, client.WithHTTPClient(stacktest.HTTPClient())),
		tc:     tc,
		hosts:  []dockerHost{{cl.HostID, dockerAPI}},
		faults: &nodeKills{cl: cl, rnd: e.rnd, log: e.log},
		logs: func() {
			for _, n := range []string{"worker", "gateway1", "node1", "node2", "node3"} {
				t.Log(cl.LogTail(n))
			}
		},
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
	faultTally
}

func (k *nodeKills) run(ctx context.Context, every time.Duration) {
	for nextFault(ctx, k.rnd, every) {
		i := k.rnd.IntN(len(clustertest.NodeIPs))
		hold := time.Duration(2+k.rnd.IntN(29)) * time.Second
		k.log("fault: %s node%d (%s) for %s", faultKillNode, i+1, clustertest.NodeIPs[i], hold)
		k.add(faultKillNode)
		k.cl.KillNode(i)
		time.Sleep(hold)
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		err := k.cl.StartNode(sctx, i)
		cancel()
		if err != nil {
			k.problem(fmt.Sprintf("Temporal node %d did not come back: %v", i+1, err))
			return
		}
	}
}

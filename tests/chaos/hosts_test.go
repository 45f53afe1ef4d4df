package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	dockerclient "github.com/docker/docker/client"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

const faultKillHost = "kill-host"

// TestChaosHosts is the chaos run on three Docker hosts (the stack's own
// and two of the many-hosts harness, each its own network namespace,
// dockerd and worker): the driver's operations go on while the fault loop
// SIGKILLs one netns host's dockerd, containers and worker (a machine
// dying) and brings it back, one host at a time. Nothing is started with
// rollback consent, so every acknowledged file must be there afterwards
// on whatever host holds its sandbox; a sandbox its host's death stopped
// must say so in its events. BERTH_TEST_CHAOS_HOSTS=1 (task chaos:hosts);
// BERTH_CHAOS_SEED, BERTH_CHAOS_DURATION (default 3m),
// BERTH_CHAOS_FAULT_EVERY (default 30s) as for TestChaos.
func TestChaosHosts(t *testing.T) {
	if os.Getenv("BERTH_TEST_CHAOS_HOSTS") == "" {
		t.Skip("the many-hosts chaos run: BERTH_TEST_CHAOS_HOSTS=1 (task chaos:hosts)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("the many-hosts harness needs root (network namespaces, a dockerd per host)")
	}
	runChaos(t, suite{gate: "BERTH_TEST_CHAOS_HOSTS", title: "chaos (hosts)", prefix: "chaosh",
		duration: 3 * time.Minute, every: 30 * time.Second, faultEvery: "a host killed about every", start: startHosts})
}

// startHosts starts the stack with the many-hosts harness and two netns
// hosts beside its own, and kills the netns ones.
func startHosts(t *testing.T, e runEnv) *rig {
	setupStart := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// The guard is off, as in tests/hosts: the netns hosts' workers share
	// nothing with it, and the stack's own shares this namespace's
	// nftables with any other test's.
	st, err := stacktest.Start(ctx, stacktest.Options{Hosts: true, Env: []string{"BERTH_CONTINUE_AS_NEW_AFTER=40", "BERTH_NETGUARD=off"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	var netns []*stacktest.Host
	hosts := []dockerHost{{st.HostID, st.DockerAPI}}
	for _, name := range []string{"c1", "c2"} {
		h, err := st.AddHost(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Remove)
		cli, err := dockerclient.NewClientWithOpts(dockerclient.WithHost(h.DockerHost()), dockerclient.WithAPIVersionNegotiation())
		if err != nil {
			t.Fatal(err)
		}
		netns = append(netns, h)
		hosts = append(hosts, dockerHost{h.ID, cli})
	}
	t.Logf("three hosts up in %s", time.Since(setupStart).Round(time.Second))
	hk := &hostKills{hosts: netns, rnd: e.rnd, log: e.log}
	return &rig{
		c:         client.New(st.URL, st.Token, client.WithHTTPClient(stacktest.HTTPClient())),
		tc:        st.Temporal,
		hosts:     hosts,
		faults:    hk,
		lostSince: hk.since,
		logs: func() {
			t.Logf("--- worker log ---\n%s\n--- gateway log ---\n%s", st.Logs("worker"), st.Logs("gateway"))
			for _, h := range netns {
				t.Logf("--- host %s worker log ---\n%s", h.Name, h.Logs("worker"))
			}
		},
	}
}

// hostKills kills one netns host at a time, the way a machine dies, and
// brings it back after a seeded hold: shorter than the registry's
// HostLostAfter (30 s) or longer, so both a host that is missed and one
// that is declared lost come back.
type hostKills struct {
	hosts []*stacktest.Host
	rnd   *rand.Rand
	log   func(format string, args ...any)
	faultTally

	firstKill time.Time // under faultTally.mu
}

// since is when the first host was killed (zero if none was).
func (k *hostKills) since() time.Time {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.firstKill
}

func (k *hostKills) run(ctx context.Context, every time.Duration) {
	for nextFault(ctx, k.rnd, every) {
		h := k.hosts[k.rnd.IntN(len(k.hosts))]
		hold := time.Duration(5+k.rnd.IntN(40)) * time.Second
		k.log("fault: %s of %s for %s", faultKillHost, h.Name, hold)
		k.mu.Lock()
		if k.firstKill.IsZero() {
			k.firstKill = time.Now()
		}
		k.mu.Unlock()
		k.add(faultKillHost)
		h.Kill()
		if left := h.Processes(); len(left) > 0 {
			k.problem(fmt.Sprintf("host %s: %d processes left after the kill", h.Name, len(left)))
		}
		time.Sleep(hold)
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := h.Restart(rctx)
		cancel()
		if err != nil {
			k.problem(fmt.Sprintf("host %s did not come back: %v", h.Name, err))
			return
		}
	}
}

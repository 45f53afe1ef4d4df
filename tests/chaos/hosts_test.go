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
	seed := envSeed(t)
	duration := envDuration(t, "BERTH_CHAOS_DURATION", 3*time.Minute)
	every := envDuration(t, "BERTH_CHAOS_FAULT_EVERY", 30*time.Second)
	t.Logf("chaos (hosts) seed %d (rerun: BERTH_TEST_CHAOS_HOSTS=1 BERTH_CHAOS_SEED=%d), %s, a host killed about every %s", seed, seed, duration, every)
	defer func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d: rerun with BERTH_TEST_CHAOS_HOSTS=1 BERTH_CHAOS_SEED=%d", seed, seed)
		}
	}()

	setupStart := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	// The guard is off, as in tests/hosts: the netns hosts' workers share
	// nothing with it, and the stack's own shares this namespace's
	// nftables with any other test's.
	st, err := stacktest.Start(ctx, stacktest.Options{Hosts: true, Env: []string{"BERTH_CONTINUE_AS_NEW_AFTER=40", "BERTH_NETGUARD=off"}})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	var netns []*stacktest.Host
	hosts := []dockerHost{{st.HostID, st.DockerAPI}}
	for _, name := range []string{"c1", "c2"} {
		h, err := st.AddHost(ctx, name)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		t.Cleanup(h.Remove)
		cli, err := dockerclient.NewClientWithOpts(dockerclient.WithHost(h.DockerHost()), dockerclient.WithAPIVersionNegotiation())
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		netns = append(netns, h)
		hosts = append(hosts, dockerHost{h.ID, cli})
	}
	cancel()
	t.Logf("three hosts up in %s", time.Since(setupStart).Round(time.Second))
	c := client.New(st.URL, st.Token, client.WithHTTPClient(stacktest.HTTPClient()))

	logf := func(format string, args ...any) {
		t.Logf("%s "+format, append([]any{time.Now().Format("15:04:05.0")}, args...)...)
	}
	d := &driver{c: c, rnd: rand.New(rand.NewPCG(seed, 1)), prefix: fmt.Sprintf("chaosh-%d", seed%100000), log: logf,
		ops: map[string]int{}, acked: map[string]int{}, codes: map[string]int{}}
	hk := &hostKills{hosts: netns, rnd: rand.New(rand.NewPCG(seed, 2)), log: logf, count: map[string]int{}}

	runCtx, stopRun := context.WithTimeout(context.Background(), duration)
	faultsDone := make(chan struct{})
	go func() { defer close(faultsDone); hk.run(runCtx, every) }()
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

	v := check(t, st.Temporal, hosts, c, d, hk.firstKill)
	v = append(v, hk.problems...)
	v = append(v, d.logGaps...)
	for _, u := range d.undoc {
		v = append(v, "undocumented error code: "+u)
	}
	_, spec := stacktest.SpecReport()
	for _, s := range spec {
		v = append(v, "not as the spec says: "+s)
	}
	report(t, seed, d, &faults{count: hk.count}, v)
	t.Logf("running sandboxes stopped by their host's death, saying so: %d", verified.hostStops)
	if len(v) > 0 {
		t.Errorf("%d invariant violations (seed %d):\n  %s", len(v), seed, strings.Join(v, "\n  "))
	}
	if t.Failed() {
		t.Logf("--- worker log ---\n%s\n--- gateway log ---\n%s", st.Logs("worker"), st.Logs("gateway"))
		for _, h := range netns {
			t.Logf("--- host %s worker log ---\n%s", h.Name, h.Logs("worker"))
		}
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

	mu        sync.Mutex
	count     map[string]int
	problems  []string
	firstKill time.Time
}

func (k *hostKills) run(ctx context.Context, every time.Duration) {
	for {
		wait := every/2 + time.Duration(k.rnd.Int64N(int64(every)))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		h := k.hosts[k.rnd.IntN(len(k.hosts))]
		hold := time.Duration(5+k.rnd.IntN(40)) * time.Second
		k.log("fault: %s of %s for %s", faultKillHost, h.Name, hold)
		k.mu.Lock()
		if k.firstKill.IsZero() {
			k.firstKill = time.Now()
		}
		k.count[faultKillHost]++
		k.mu.Unlock()
		h.Kill()
		if left := h.Processes(); len(left) > 0 {
			k.problems = append(k.problems, fmt.Sprintf("host %s: %d processes left after the kill", h.Name, len(left)))
		}
		time.Sleep(hold)
		rctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		err := h.Restart(rctx)
		cancel()
		if err != nil {
			k.problems = append(k.problems, fmt.Sprintf("host %s did not come back: %v", h.Name, err))
			return
		}
	}
}

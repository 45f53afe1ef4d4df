package doze

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// manyDozing is how many sandboxes doze at once: 20 by default (the
// machine is shared with other test runs), BERTH_DOZE_MANY=200 for the
// issue's figure. Then the stack gives sandboxes the smallest instance
// type there is room for 200 of ("doze-tiny": 64 MiB, a hundredth of a
// vCPU), plain volumes (no loop-mounted disk per sandbox) and no memory
// pressure relief (which would put the oldest to sleep).
var manyDozing = 20

// manyType is the instance type of the many sandboxes.
var manyType = "lite"

func manyOptions() (stacktest.Options, error) {
	v := os.Getenv("BERTH_DOZE_MANY")
	if v == "" {
		return stacktest.Options{}, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 500 {
		return stacktest.Options{}, fmt.Errorf("BERTH_DOZE_MANY=%q: want 1-500", v)
	}
	manyDozing, manyType = n, "doze-tiny"
	dir, err := os.MkdirTemp("", "berth-doze-many-")
	if err != nil {
		return stacktest.Options{}, err
	}
	types := filepath.Join(dir, "types.json")
	if err := os.WriteFile(types, []byte(`[{"name":"doze-tiny","vcpu":0.01,"memoryMiB":64,"pids":64,"diskMiB":64}]`), 0o644); err != nil {
		return stacktest.Options{}, err
	}
	return stacktest.Options{Env: []string{"BERTH_INSTANCE_TYPES=" + types, "BERTH_DOZE_PRESSURE=0", "BERTH_DISK_LIMITS=off"}}, nil
}

// TestManyDozingSandboxesUseNoCPU: with manyDozing sandboxes dozing, their
// containers use no CPU and the worker and gateway next to none; then
// each thaws on demand.
func TestManyDozingSandboxesUseNoCPU(t *testing.T) {
	ctx := testCtx(t, 25*time.Minute)
	names := make([]string, manyDozing)
	boxes := make([]*client.Sandbox, manyDozing)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 3) // a shared 2-core machine: a few boots at a time
	for i := range names {
		names[i] = name(fmt.Sprintf("many%d", i))
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			boxes[i] = newSandbox(t, names[i], client.CreateRequest{DozeAfter: dur(2 * time.Second), InstanceType: manyType})
			run(t, ctx, boxes[i], "true")
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	ids := make([]string, manyDozing)
	for i, n := range names {
		waitStatus(t, n, "dozing", 2*time.Minute)
		ids[i], _, _ = containerState(t, n)
	}

	const window = 10 * time.Second
	pids := map[string]int{"worker": stack.WorkerPID(), "gateway": stack.GatewayPID()}
	procs0 := map[string]int64{}
	for role, pid := range pids {
		procs0[role] = procCPUNanos(t, pid)
	}
	var cont0 int64
	for _, id := range ids {
		cont0 += cpuNanos(t, id)
	}
	start := time.Now()
	time.Sleep(window)
	elapsed := time.Since(start)
	var cont int64
	for _, id := range ids {
		cont += cpuNanos(t, id)
	}
	cont -= cont0
	pct := func(ns int64) float64 { return 100 * float64(ns) / float64(elapsed) }
	total := cont
	for role, pid := range pids {
		used := procCPUNanos(t, pid) - procs0[role]
		total += used
		t.Logf("%s CPU with %d sandboxes dozing: %.2f%% of a core", role, manyDozing, pct(used))
	}
	t.Logf("the %d dozing containers' CPU: %.3f%% of a core (%s over %s)", manyDozing, pct(cont), time.Duration(cont), elapsed.Round(time.Millisecond))
	t.Logf("Berth processes + containers: %.2f%% of a core (goal ≤ 2%%; Temporal's dev server not counted)", pct(total))
	if cont > int64(5*time.Millisecond) {
		t.Fatalf("dozing containers used %s of CPU in %s", time.Duration(cont), elapsed)
	}
	if pct(total) > 2 {
		t.Fatalf("Berth used %.1f%% of a core with every sandbox dozing (goal ≤ 2%%)", pct(total))
	}

	// Each thaws on demand.
	lat := make([]time.Duration, manyDozing)
	for i, sb := range boxes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			s := time.Now()
			if out := run(t, ctx, sb, "echo up"); out != "up\n" {
				t.Errorf("%s answered %q", names[i], out)
			}
			lat[i] = time.Since(s)
		}()
	}
	wg.Wait()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("thaw + exec of %d dozing sandboxes, 3 at a time: p50 %s, max %s", manyDozing,
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
}

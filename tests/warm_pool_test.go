package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/volume"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// Warm pools (BERTH_WARM_POOL): a worker keeps containers booted ahead of
// any sandbox, and a new sandbox claims one. These tests run their own
// stack with a pool of the basic type.

// warmStack starts a stack whose worker keeps size warm basic containers
// (and has env besides).
func warmStack(t *testing.T, ctx context.Context, size string, env ...string) *stacktest.Stack {
	t.Helper()
	s, err := stacktest.Start(ctx, stacktest.Options{Env: append([]string{"BERTH_WARM_POOL=basic=" + size}, env...)})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", s.Logs("worker"))
		}
		s.Close()
	})
	return s
}

// warmIDs lists the host's unclaimed warm containers that run.
func warmIDs(t *testing.T, ctx context.Context, s *stacktest.Stack) []string {
	t.Helper()
	cs, err := s.DockerAPI.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(
		filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+s.HostID))})
	require.NoError(t, err)
	var ids []string
	for _, c := range cs {
		if strings.HasPrefix(activities.ListedName(c.Names), activities.WarmPrefix) && c.State == "running" {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// waitWarm waits until the pool holds n warm basic containers ready to be
// claimed (its host announces them so once their supervisor answered; a
// container merely running may be one still being made, which a boot
// would not get) and returns them.
func waitWarm(t *testing.T, ctx context.Context, s *stacktest.Stack, n int) []string {
	t.Helper()
	var ids []string
	announced := -1
	require.Eventually(t, func() bool {
		if ids = warmIDs(t, ctx, s); len(ids) != n {
			return false
		}
		hs, err := s.Client().Hosts(ctx)
		require.NoError(t, err)
		for _, h := range hs {
			if h.ID == s.HostID {
				announced = h.Warm["basic"]
			}
		}
		return announced == n
	}, 90*time.Second, 200*time.Millisecond, "the pool never held %d warm containers ready (runs %d, announced %d)", n, len(ids), announced)
	return warmIDs(t, ctx, s)
}

// waitWarmRunning waits until n warm containers run, ready or not (for a
// host whose worker is down, which announces nothing).
func waitWarmRunning(t *testing.T, ctx context.Context, s *stacktest.Stack, n int) []string {
	t.Helper()
	var ids []string
	require.Eventually(t, func() bool {
		ids = warmIDs(t, ctx, s)
		return len(ids) == n
	}, 90*time.Second, 200*time.Millisecond, "the pool never ran %d warm containers (runs %d)", n, len(ids))
	return ids
}

// containerOf is the Docker id of a sandbox's container.
func containerOf(t *testing.T, ctx context.Context, s *stacktest.Stack, n string) string {
	t.Helper()
	c, err := s.Docker.Inspect(ctx, activities.ContainerName(n))
	require.NoError(t, err)
	require.NotNil(t, c, "sandbox %s has no container", n)
	return c.ID
}

// bootsOf counts the boots in a sandbox's current run: Boot activities
// (through a host's queue) and BootWarm local activities (a claim in the
// workflow's own worker, recorded as a marker).
func bootsOf(t *testing.T, s *stacktest.Stack, n string) (hostQueue, inWorker int) {
	t.Helper()
	return activitiesOf(t, s, n, contract.ActivityBoot, contract.ActivityBootWarm)
}

// activitiesOf counts, in a sandbox's current run, the activities named
// queued that were scheduled on a queue, and the local activities named
// local (each recorded as a marker).
func activitiesOf(t *testing.T, s *stacktest.Stack, n, queued, local string) (hostQueue, inWorker int) {
	t.Helper()
	for _, ev := range sandboxHistory(t, s, n) {
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == queued {
			hostQueue++
		}
		if m := ev.GetMarkerRecordedEventAttributes(); m != nil && m.GetMarkerName() == "LocalActivity" {
			for _, p := range m.GetDetails()["data"].GetPayloads() {
				if strings.Contains(string(p.GetData()), `"`+local+`"`) {
					inWorker++
				}
			}
		}
	}
	return hostQueue, inWorker
}

// sandboxHistory is the current run's history of sandbox n's workflow on s.
func sandboxHistory(t *testing.T, s *stacktest.Stack, n string) []*historypb.HistoryEvent {
	t.Helper()
	var evs []*historypb.HistoryEvent
	it := s.Temporal.GetWorkflowHistory(testCtx(t, time.Minute), contract.WorkflowID(n), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		evs = append(evs, ev)
	}
	return evs
}

func runOut(t *testing.T, ctx context.Context, sb *client.Sandbox, argv ...string) string {
	t.Helper()
	r, err := sb.Run(ctx, argv, client.RunOptions{})
	require.NoError(t, err, "%v", argv)
	return string(r.Stdout)
}

// A new sandbox runs in a warm container; what one sandbox leaves in its
// container (files in /workspace and outside it, processes, env) is not
// in the next one's; the claimed sandbox keeps its workspace across a
// sleep, dies like any other when its container is killed, and nothing
// warm is left behind once the pool's containers are claimed and gone.
func TestWarmPoolClaimsACleanContainerPerSandbox(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 6*time.Minute)
	s := warmStack(t, ctx, "2")
	c := s.Client()
	warm := waitWarm(t, ctx, s, 2)

	a := name(t, "warm-a")
	_, _, err := c.Create(ctx, client.CreateRequest{Name: a, SleepAfter: time.Hour, Env: map[string]string{"LEFT_BEHIND": "a-env"}})
	require.NoError(t, err)
	sa := c.Sandbox(a)
	require.Equal(t, "hi\n", runOut(t, ctx, sa, "echo", "hi"))
	idA := containerOf(t, ctx, s, a)
	require.Contains(t, warm, idA, "sandbox %s did not claim a warm container", a)
	hostQueue, inWorker := bootsOf(t, s, a)
	require.Equal(t, [2]int{0, 1}, [2]int{hostQueue, inWorker}, "a claim on the workflow worker's own host must run in that worker, not through the host's queue")
	require.Equal(t, "a-env\n", runOut(t, ctx, sa, "sh", "-c", "echo $LEFT_BEHIND"), "the claimed container has the sandbox's env")
	runOut(t, ctx, sa, "sh", "-c", "echo a > /workspace/mine && echo a > /root/mine")
	_, err = sa.Exec(ctx, []string{"sleep", "1000"}, client.ExecOptions{})
	require.NoError(t, err)
	// The egress trust bundle was written at the claim, for this boot.
	require.Contains(t, runOut(t, ctx, sa, "sh", "-c", "cat $SSL_CERT_FILE"), "BEGIN CERTIFICATE")

	// The pool refills behind the claim.
	refilled := waitWarm(t, ctx, s, 2)
	require.NotContains(t, refilled, idA)

	b := name(t, "warm-b")
	_, _, err = c.Create(ctx, client.CreateRequest{Name: b, SleepAfter: time.Hour})
	require.NoError(t, err)
	sbB := c.Sandbox(b)
	require.Equal(t, "hi\n", runOut(t, ctx, sbB, "echo", "hi"))
	idB := containerOf(t, ctx, s, b)
	require.Contains(t, refilled, idB, "sandbox %s did not claim a warm container", b)
	require.NotEqual(t, idA, idB)
	require.Equal(t, "", runOut(t, ctx, sbB, "sh", "-c", "ls -A /workspace; ls /root/mine 2>/dev/null; echo -n $LEFT_BEHIND"),
		"the second sandbox sees something of the first")
	require.NotContains(t, runOut(t, ctx, sbB, "ps", "-eo", "args"), "sleep 1000")

	// The claimed workspace is the sandbox's: it survives sleep and wake.
	_, err = c.Sleep(ctx, a)
	require.NoError(t, err)
	_, err = c.Start(ctx, a)
	require.NoError(t, err)
	require.Equal(t, "a\n", runOut(t, ctx, sa, "cat", "/workspace/mine"))
	require.NotEqual(t, idA, containerOf(t, ctx, s, a), "a wake boots a fresh container")

	// A fork's first boot restores the origin's backup into a claimed
	// warm container before anything runs in it.
	waitWarm(t, ctx, s, 2)
	warm = warmIDs(t, ctx, s)
	f := name(t, "warm-fork")
	_, _, err = c.Fork(ctx, client.CreateRequest{Name: f, SleepAfter: time.Hour}, client.ForkFrom{Sandbox: a})
	require.NoError(t, err)
	require.Equal(t, "a\n", runOut(t, ctx, c.Sandbox(f), "cat", "/workspace/mine"))
	require.Contains(t, warm, containerOf(t, ctx, s, f), "the fork did not claim a warm container")
	require.NotContains(t, runOut(t, ctx, c.Sandbox(f), "ps", "-eo", "args"), "sleep 1000")
	require.Contains(t, s.EventTypes(t, f), "workspace-restored")

	// A claimed container that dies stops its sandbox, like any other.
	require.NoError(t, s.DockerAPI.ContainerKill(ctx, containerOf(t, ctx, s, b), "KILL"))
	require.Eventually(t, func() bool {
		v, err := c.Get(ctx, b)
		return err == nil && v.Status == "stopped"
	}, 30*time.Second, 200*time.Millisecond, "sandbox %s never noticed its container died", b)

	for _, n := range []string{a, b, f} {
		_, err := c.Destroy(ctx, n)
		require.NoError(t, err)
	}
	// Nothing warm is left but the pool itself: every warm volume without
	// a container goes (the sweep runs every few seconds).
	require.Eventually(t, func() bool {
		vs, err := s.DockerAPI.VolumeList(ctx, volume.ListOptions{Filters: filters.NewArgs(
			filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+s.HostID))})
		return err == nil && len(vs.Volumes) == len(warmIDs(t, ctx, s))
	}, 30*time.Second, 500*time.Millisecond, "warm volumes outlived their containers")
}

// A restarted worker adopts the pool it finds instead of leaking it or
// making another; a warm container that dies is replaced.
func TestWarmPoolSurvivesWorkerRestart(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 5*time.Minute)
	s := warmStack(t, ctx, "2")
	before := waitWarm(t, ctx, s, 2)

	s.StopWorker(syscall.SIGKILL)
	require.NoError(t, s.StartWorker())
	// Given the worker time to fill (it would have by now), the pool is
	// the same two containers.
	time.Sleep(8 * time.Second)
	require.Equal(t, before, waitWarm(t, ctx, s, 2), "the restarted worker did not adopt the pool")

	// The adopted containers serve claims.
	n := name(t, "warm-adopted")
	_, _, err := s.Client().Create(ctx, client.CreateRequest{Name: n, SleepAfter: time.Hour})
	require.NoError(t, err)
	require.Equal(t, "hi\n", runOut(t, ctx, s.Client().Sandbox(n), "echo", "hi"))
	require.Contains(t, before, containerOf(t, ctx, s, n))

	// A warm container killed behind the worker's back is replaced.
	now := waitWarm(t, ctx, s, 2)
	require.NoError(t, s.DockerAPI.ContainerKill(ctx, now[0], "KILL"))
	require.Eventually(t, func() bool {
		ids := warmIDs(t, ctx, s)
		return len(ids) == 2 && !slices.Contains(ids, now[0])
	}, 60*time.Second, 500*time.Millisecond, "the killed warm container was not replaced")
	_, err = s.Client().Destroy(ctx, n)
	require.NoError(t, err)
}

// A worker that dies in the middle of a claim (the warm container renamed
// to the sandbox's, its disk not yet handed over: fault-injected exit)
// leaves nothing half-made, and once the sandbox is destroyed nothing warm
// is left but the pool.
//
// A claim through the host's queue (Boot; forced here with
// BERTH_FAULT_NO_LOCAL_BOOT, as when the workflow's worker is on another
// host): the boot's retry on the restarted worker takes up the same
// container and finishes the claim. A claim in the workflow's own worker
// (BootWarm): the workflow task that ran it is retried whole, with a new
// boot id, so the container claimed for the lost one is removed, its warm
// volume with it, and the sandbox boots anew.
func TestWarmClaimSurvivesAWorkerCrash_FaultInjected(t *testing.T) {
	t.Parallel()
	t.Run("host-queue", func(t *testing.T) { warmClaimCrash(t, false) })
	t.Run("local", func(t *testing.T) { warmClaimCrash(t, true) })
}

func warmClaimCrash(t *testing.T, local bool) {
	ctx := testCtx(t, 5*time.Minute)
	trigger := filepath.Join(t.TempDir(), "crash-on-claim")
	env := []string{"BERTH_WARM_POOL=basic=1", "BERTH_FAULT_CLAIM_CRASH=" + trigger}
	if !local {
		env = append(env, "BERTH_FAULT_NO_LOCAL_BOOT=1")
	}
	s, err := stacktest.Start(ctx, stacktest.Options{Env: env})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s", s.Logs("worker"))
		}
		s.Close()
	})
	warm := waitWarm(t, ctx, s, 1)
	require.NoError(t, os.WriteFile(trigger, nil, 0o600))
	c := s.Client()
	n := name(t, "warm-crash")
	_, _, err = c.Create(ctx, client.CreateRequest{Name: n, SleepAfter: time.Hour, Start: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := os.Stat(trigger)
		return os.IsNotExist(err)
	}, time.Minute, 50*time.Millisecond, "the worker never reached the claim")
	pid := s.WorkerPID()
	require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, 30*time.Second, 50*time.Millisecond,
		"the worker did not exit at the claim")
	require.Equal(t, warm[0], containerOf(t, ctx, s, n), "the crash did not happen after the rename")
	require.NoError(t, s.StartWorker())

	sb := c.Sandbox(n)
	require.Equal(t, "kept\n", runOut(t, ctx, sb, "sh", "-c", "echo kept > /workspace/f && cat /workspace/f"))
	if local {
		require.NotEqual(t, warm[0], containerOf(t, ctx, s, n), "a container claimed for a boot the workflow never recorded was kept")
	} else {
		require.Equal(t, warm[0], containerOf(t, ctx, s, n), "the retried boot did not take up the claimed container")
	}
	hostQueue, inWorker := bootsOf(t, s, n)
	if local {
		// The retry claims in the worker or boots through the queue,
		// as the refilling pool allows; either way one boot.
		require.Equal(t, 1, hostQueue+inWorker, "boots recorded: %d through the queue, %d in the worker", hostQueue, inWorker)
	} else {
		require.Equal(t, [2]int{1, 0}, [2]int{hostQueue, inWorker}, "the boot did not go through the host's queue")
	}
	_, err = c.Sleep(ctx, n)
	require.NoError(t, err)
	require.Equal(t, "kept\n", runOut(t, ctx, sb, "cat", "/workspace/f"), "the claimed workspace was not the sandbox's")
	_, err = c.Destroy(ctx, n)
	require.NoError(t, err)
	var left []string
	require.Eventually(t, func() bool {
		vs, err := s.DockerAPI.VolumeList(ctx, volume.ListOptions{Filters: filters.NewArgs(
			filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+s.HostID))})
		cs, cerr := s.DockerAPI.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(
			filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+s.HostID))})
		if err != nil || cerr != nil {
			return false
		}
		left = nil
		for _, v := range vs.Volumes {
			left = append(left, "volume "+v.Name)
		}
		for _, c := range cs {
			left = append(left, "container "+activities.ListedName(c.Names)+" ("+c.State+")")
		}
		return len(vs.Volumes) == 1 && len(cs) == 1
	}, 30*time.Second, 500*time.Millisecond, "warm objects outlived the claim: %v", &left)
}

// A worker that dies while filling the pool, between a warm container's
// start and its attach (fault-injected exit), leaves it running without an
// interface. The restarted worker attaches and keeps that container rather
// than replacing it, and it serves a claim.
func TestWarmPoolAdoptsAFillLeftUnattached_FaultInjected(t *testing.T) {
	// Serial: beside the parallel tests of a full run the restarted worker
	// replaced the container in two of two runs (never alone); the cause
	// is not shown yet.
	ctx := testCtx(t, 5*time.Minute)
	trigger := filepath.Join(t.TempDir(), "crash-on-attach")
	s := warmStack(t, ctx, "1", "BERTH_FAULT_ATTACH_CRASH="+trigger)
	first := waitWarm(t, ctx, s, 1)
	require.NoError(t, os.WriteFile(trigger, nil, 0o600))
	c := s.Client()
	claimer := name(t, "warm-claimer")
	_, _, err := c.Create(ctx, client.CreateRequest{Name: claimer, SleepAfter: time.Hour, Start: true})
	require.NoError(t, err)
	// The claim asks for a refill, and the refill's attach is the crash.
	pid := s.WorkerPID()
	require.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil }, time.Minute, 50*time.Millisecond,
		"the worker did not exit while refilling")
	left := waitWarmRunning(t, ctx, s, 1)
	require.NotEqual(t, first, left)
	info, err := s.Docker.Inspect(ctx, left[0])
	require.NoError(t, err)
	require.False(t, dockerrt.Attached(info), "the crash did not happen before the attach")

	require.NoError(t, s.StartWorker())
	time.Sleep(8 * time.Second) // a replacement would have been made by now
	require.Equal(t, left, waitWarm(t, ctx, s, 1), "the restarted worker replaced the unattached warm container")
	n := name(t, "warm-after")
	_, _, err = c.Create(ctx, client.CreateRequest{Name: n, SleepAfter: time.Hour})
	require.NoError(t, err)
	require.Equal(t, "hi\n", runOut(t, ctx, c.Sandbox(n), "echo", "hi"))
	require.Equal(t, left[0], containerOf(t, ctx, s, n), "the sandbox did not claim the adopted container")
	for _, sb := range []string{claimer, n} {
		_, err := c.Destroy(ctx, sb)
		require.NoError(t, err)
	}
}

// A restarted worker adopts a warm container only while it is what the
// pool's type makes today: once the type's image tag points elsewhere, or
// its limits were edited, the pool it finds is replaced instead of handing
// sandboxes the old image or bounds.
func TestWarmPoolReplacesContainersItsTypeNoLongerMakes(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 6*time.Minute)
	tag := "berth/warm-adopt-" + strings.ToLower(name(t, "img")) + ":latest"
	buildLabelled := func(version string) {
		c := exec.CommandContext(ctx, "docker", "build", "-q", "--label", "io.berth.test=warm-adopt",
			"--label", "io.berth.test-version="+version, "-t", tag, "-")
		c.Stdin = strings.NewReader("FROM " + stacktest.TestImage + "\n")
		c.Env = append(os.Environ(), "DOCKER_BUILDKIT=0")
		out, err := c.CombinedOutput()
		require.NoError(t, err, "docker build: %s", out)
	}
	buildLabelled("1")
	t.Cleanup(func() { _ = exec.Command("docker", "rmi", "-f", tag).Run() })
	types := filepath.Join(t.TempDir(), "types.json")
	writeTypes := func(memMiB int) {
		require.NoError(t, os.WriteFile(types, []byte(fmt.Sprintf(
			`[{"name":"basic","vcpu":0.25,"memoryMiB":%d,"pids":512,"diskMiB":5120,"image":%q}]`, memMiB, tag)), 0o644))
	}
	writeTypes(1024)
	s := warmStack(t, ctx, "2", "BERTH_INSTANCE_TYPES="+types)
	first := waitWarm(t, ctx, s, 2)

	restartWith := func(change func()) []string {
		s.StopWorker(syscall.SIGKILL)
		change()
		require.NoError(t, s.StartWorker())
		// waitWarm fails the test itself, so it runs here, in the test's
		// goroutine: inside require.Eventually's condition it would fail
		// the test from a goroutine that outlives it (a panic of the
		// whole package).
		deadline := time.Now().Add(2 * time.Minute)
		for {
			ids := waitWarm(t, ctx, s, 2)
			if !slices.Contains(ids, first[0]) && !slices.Contains(ids, first[1]) {
				return ids
			}
			if time.Now().After(deadline) {
				t.Fatalf("the restarted worker kept warm containers its type no longer makes: %v", ids)
			}
			time.Sleep(time.Second)
		}
	}

	// The tag moves to another image.
	second := restartWith(func() { buildLabelled("2") })
	want, err := s.DockerAPI.ImageInspect(ctx, tag)
	require.NoError(t, err)
	for _, id := range second {
		c, err := s.Docker.Inspect(ctx, id)
		require.NoError(t, err)
		require.Equal(t, want.ID, c.Image, "a warm container of the old image")
	}

	// The type's memory is edited.
	first = second
	third := restartWith(func() { writeTypes(768) })
	for _, id := range third {
		c, err := s.Docker.Inspect(ctx, id)
		require.NoError(t, err)
		require.EqualValues(t, 768<<20, c.HostConfig.Memory, "a warm container of the old limits")
	}

	// Nothing changed: the same two are adopted, as before.
	s.StopWorker(syscall.SIGKILL)
	require.NoError(t, s.StartWorker())
	time.Sleep(8 * time.Second)
	require.Equal(t, third, waitWarm(t, ctx, s, 2), "the restarted worker did not adopt a pool that still fits")
}

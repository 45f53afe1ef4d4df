package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/auth"
	"github.com/berthdev/berth/internal/connpool"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/supervisor/supervisortest"
	"github.com/berthdev/berth/workflows/contract"
)

// Process benchmarks run against the real stack; each prints its figure
// beside a baseline measured in the same run. `task bench` or
//
//	go test ./tests -run '^$' -bench 'ExecRoundTrip|LogThroughput|SupervisorRSS' -benchtime=1x

// benchSandbox creates and starts a keepAlive sandbox for a benchmark and
// destroys it afterwards.
func benchSandbox(b *testing.B, suffix string) (string, *client.Sandbox) {
	return benchSandboxType(b, suffix, "basic")
}

func benchSandboxType(b *testing.B, suffix, instanceType string) (string, *client.Sandbox) {
	b.Helper()
	n := fmt.Sprintf("%s-%s-%d", suffix, stack.HostID, time.Now().UnixNano()%1e6)
	sb := newSandbox(b, n, map[string]any{"keepAlive": true, "instanceType": instanceType})
	stack.Must(b, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	return n, sb
}

// BenchmarkExecRoundTrip: `true` through the gateway as one round trip
// (Run: POST .../processes with "wait": true) and as two (Exec + Output,
// the way before one-round-trip commands), vs the Docker Engine API's exec
// on the same container (ExecCreate + ExecAttach, which starts it, +
// ExecInspect until it has exited), and vs fork+exec+wait of `true` on the
// host. At least 50 samples of each, interleaved in blocks.
//
// Where the time goes: Run also goes straight to the sandbox's supervisor
// (its address and token, no gateway), and ./forkloop times fork+exec+wait
// of `true` inside the sandbox (its CPU quota and file system): no exec
// that forks there can be faster, so docker exec over that floor is the
// most any such exec can gain on docker exec in this sandbox.
//
// The sandbox's CPU quota applies to the sandbox paths (a docker exec
// joins the container's cgroup too): on the default basic type (1/4 vCPU)
// the tail is CFS throttling, so the comparison also runs on standard-2
// (1 vCPU). The SDK client here is the default one (client.New), which a
// user has; the tests' spec-checking client validates every answer, which
// is not what a user pays. The straight path uses the same transport.
func BenchmarkExecRoundTrip(b *testing.B) {
	for _, it := range []string{"basic", "standard-2"} {
		b.Run(it, func(b *testing.B) { benchExecRoundTrip(b, it) })
	}
}

// cfsRefill is two CFS periods: long enough for a cgroup's CPU quota to
// refill after a burst.
const cfsRefill = 200 * time.Millisecond

func benchExecRoundTrip(b *testing.B, instanceType string) {
	ctx := context.Background()
	n, _ := benchSandboxType(b, "bexec", instanceType)
	sb := client.New(stack.URL, stack.Token).Sandbox(n)
	dc := stack.DockerAPI
	cname := "berth-" + n
	runOn := func(sb *client.Sandbox, via string) func() time.Duration {
		return func() time.Duration {
			start := time.Now()
			r, err := sb.Run(ctx, []string{"true"}, client.RunOptions{})
			if err != nil || r.ExitCode != 0 {
				b.Fatalf("run (%s) %+v: %v", via, r, err)
			}
			return time.Since(start)
		}
	}
	run := runOn(sb, "gateway")
	twoTrips := func() time.Duration {
		start := time.Now()
		p, err := sb.Exec(ctx, []string{"true"}, client.ExecOptions{})
		if err != nil {
			b.Fatal(err)
		}
		out, err := p.Output(ctx, client.OutputOptions{})
		if err != nil || out.ExitCode != 0 {
			b.Fatalf("output %+v: %v", out, err)
		}
		return time.Since(start)
	}
	docker := func() time.Duration {
		start := time.Now()
		cr, err := dc.ContainerExecCreate(ctx, cname, container.ExecOptions{Cmd: []string{"true"}, AttachStdout: true, AttachStderr: true})
		if err != nil {
			b.Fatal(err)
		}
		att, err := dc.ContainerExecAttach(ctx, cr.ID, container.ExecAttachOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		_, err = stdcopy.StdCopy(&stdout, &stderr, att.Reader)
		att.Close()
		if err != nil {
			b.Fatal(err)
		}
		for {
			in, err := dc.ContainerExecInspect(ctx, cr.ID)
			if err != nil {
				b.Fatal(err)
			}
			if !in.Running {
				if in.ExitCode != 0 {
					b.Fatalf("docker exec true: exit %d", in.ExitCode)
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
		return time.Since(start)
	}
	direct, supPID := supervisorSDK(b, n)
	runDirect := runOn(direct, "straight to the supervisor")
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Fatal(err)
	}
	host := func() time.Duration {
		start := time.Now()
		if err := exec.Command(truePath).Run(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for range 5 { // warm every path (connections, caches)
		run()
		runDirect()
		twoTrips()
		docker()
		host()
	}
	// Blocks of ten, alternating: a docker exec leaves work behind in the
	// container's cgroup (runc, the shim) that would otherwise land on the
	// next berth sample, while blocks still spread all over the same time.
	// What runc spent is billed to the sandbox's CPU quota, which on a
	// small type it can use up: the pause after the docker block lets the
	// quota refill (it does every 100 ms CFS period) so the next berth
	// block does not pay for docker's exec, as no user's Run would.
	samples := max(b.N, 50)
	var rs, ss, ts, ds, hs []time.Duration
	// Context switches of each process the Run blocks cross (caller,
	// gateway, supervisor), and of the caller and supervisor in the direct
	// blocks: on a small VM each costs more than the work between two.
	pids := []int{os.Getpid(), stack.GatewayPID(), supPID}
	var viaGateway, viaDirect [3]int64
	block := func(into *[3]int64, f func()) {
		var before [3]supervisortest.ProcStat
		for i, pid := range pids {
			before[i] = supervisortest.ReadProcStat(pid)
		}
		f()
		for i, pid := range pids {
			into[i] += supervisortest.ReadProcStat(pid).Sub(before[i]).Switches
		}
	}
	b.ResetTimer()
	for len(rs) < samples {
		block(&viaGateway, func() {
			for range 10 {
				rs = append(rs, run())
			}
		})
		block(&viaDirect, func() {
			for range 10 {
				ss = append(ss, runDirect())
			}
		})
		for range 10 {
			hs = append(hs, host())
		}
		for range 10 {
			ts = append(ts, twoTrips())
		}
		for range 10 {
			ds = append(ds, docker())
		}
		time.Sleep(cfsRefill)
	}
	b.StopTimer()
	fl := forkFloor(b, n, samples)
	faultUs := float64(fl.fault) / float64(time.Microsecond)
	rp50, rp95 := percentiles(rs)
	sp50, sp95 := percentiles(ss)
	tp50, tp95 := percentiles(ts)
	dp50, dp95 := percentiles(ds)
	hp50, hp95 := percentiles(hs)
	b.ReportMetric(ms(rp50), "run-p50-ms")
	b.ReportMetric(ms(dp50), "docker-p50-ms")
	b.ReportMetric(ms(hp50), "host-p50-ms")
	b.ReportMetric(ms(sp50), "direct-p50-ms")
	b.ReportMetric(ms(fl.p50), "floor-p50-ms")
	b.ReportMetric(faultUs, "page-fault-us")
	b.ReportMetric(ms(dp50)/ms(rp50), "speedup-x")
	b.ReportMetric(ms(dp50)/ms(sp50), "direct-speedup-x")
	fmt.Printf("\nexec round trip (`true`: start, wait, read output) over %d samples each, warm %s sandbox\n", samples, instanceType)
	fmt.Printf("  berth Run, wait:true (1 round trip)  p50 %7.2f ms   p95 %7.2f ms\n", ms(rp50), ms(rp95))
	fmt.Printf("  berth Run straight to the supervisor p50 %7.2f ms   p95 %7.2f ms   (no gateway)\n", ms(sp50), ms(sp95))
	fmt.Printf("  berth Exec+Output (2 round trips)    p50 %7.2f ms   p95 %7.2f ms\n", ms(tp50), ms(tp95))
	fmt.Printf("  docker exec create+attach+inspect    p50 %7.2f ms   p95 %7.2f ms\n", ms(dp50), ms(dp95))
	fmt.Printf("  host fork+exec+wait of true          p50 %7.2f ms   p95 %7.2f ms\n", ms(hp50), ms(hp95))
	fmt.Printf("  fork+exec+wait of true, in sandbox   p50 %7.2f ms   p95 %7.2f ms   (./forkloop)\n", ms(fl.p50), ms(fl.p95))
	fmt.Printf("  Run vs docker exec                   p50 %6.1fx     p95 %6.1fx   (goal >= 40x at p50, >= 10x at p95)\n", ms(dp50)/ms(rp50), ms(dp95)/ms(rp95))
	fmt.Printf("  Run vs host fork+exec+wait           p50 %6.2fx     p95 %6.2fx   (goal <= 2.5x)\n", ms(rp50)/ms(hp50), ms(rp95)/ms(hp95))
	fmt.Printf("  straight to the supervisor vs docker p50 %6.1fx     p95 %6.1fx   (the most a Run can reach with the gateway's hop at zero)\n", ms(dp50)/ms(sp50), ms(dp95)/ms(sp95))
	fmt.Printf("  where Run's p50 goes: %.2f ms the sandbox's own fork+exec+wait, %.2f ms the supervisor's hop, %.2f ms the gateway's\n",
		ms(fl.p50), ms(sp50-fl.p50), ms(rp50-sp50))
	fmt.Printf("  docker exec vs that in-sandbox floor p50 %6.1fx                  (the most any exec that forks there can gain)\n", ms(dp50)/ms(fl.p50))
	fmt.Printf("  of that floor, page faults: `true` takes %d, at %.1f us each in the sandbox: %.2f ms\n",
		fl.faults, faultUs, ms(time.Duration(fl.faults)*fl.fault))
	perRun := func(n int64, runs int) float64 { return float64(n) / float64(runs) }
	fmt.Printf("  voluntary context switches per Run: caller %.1f, gateway %.1f, supervisor %.1f (straight to the supervisor: caller %.1f, supervisor %.1f)\n\n",
		perRun(viaGateway[0], len(rs)), perRun(viaGateway[1], len(rs)), perRun(viaGateway[2], len(rs)),
		perRun(viaDirect[0], len(ss)), perRun(viaDirect[2], len(ss)))
}

// supervisorSDK is an SDK sandbox whose Run goes straight to sandbox n's
// supervisor, with the token the gateway would derive for its boot, and
// the supervisor's pid on this host.
func supervisorSDK(b *testing.B, n string) (*client.Sandbox, int) {
	c, err := stack.DockerAPI.ContainerInspect(context.Background(), "berth-"+n)
	if err != nil {
		b.Fatal(err)
	}
	addr, boot := c.Config.Labels[dockerrt.LabelAddr], c.Config.Labels[dockerrt.LabelBoot]
	if addr == "" || boot == "" {
		b.Fatalf("container of %s has no address or boot label: %v", n, c.Config.Labels)
	}
	return supervisortest.SDKSandbox("http://"+net.JoinHostPort(addr, contract.SupervisorPort), auth.SupervisorToken(stack.Secret, boot),
		&connpool.Transport{Pool: new(connpool.Pool)}), c.State.Pid
}

// forkLoop times fork+exec+wait inside a sandbox (see ./forkloop).
var forkLoop = testBinary{pkg: "./forkloop"}

// floor is what ./forkloop measured in a sandbox: fork+exec+wait of
// `true` (p50, p95), the page faults one run of it took (median), and the
// cost of one page fault there.
type floor struct {
	p50, p95, fault time.Duration
	faults          int64
}

// forkFloor runs ./forkloop in sandbox n: fork+exec+wait of `true` in
// blocks of ten with the same pause as the benchmark's, samples of them.
func forkFloor(b *testing.B, n string, samples int) floor {
	ctx := context.Background()
	sb := stack.Client().Sandbox(n)
	forkLoop.install(b, ctx, sb, "/workspace/forkloop")
	r, err := sb.Run(ctx, []string{"/workspace/forkloop", "-n", strconv.Itoa(samples), "-pause", cfsRefill.String(), "true"}, client.RunOptions{})
	if err != nil || r.ExitCode != 0 {
		b.Fatalf("forkloop in %s: %+v %v", n, r, err)
	}
	var out struct{ P50Ns, P95Ns, Faults, FaultNs int64 }
	if err := json.Unmarshal(r.Stdout, &out); err != nil || out.P50Ns == 0 || out.FaultNs == 0 {
		b.Fatalf("forkloop printed %q: %v", r.Stdout, err)
	}
	return floor{p50: time.Duration(out.P50Ns), p95: time.Duration(out.P95Ns), fault: time.Duration(out.FaultNs), faults: out.Faults}
}

// BenchmarkLogThroughput: 1 GiB of zeros written to stdout by busybox
// `head` in the sandbox, read with logs?follow=true through the gateway by
// the Go client from the moment the process starts, vs the same busybox
// command's stdout read from a local pipe on the host. The supervisor never
// blocks a writer on a slow reader: if the reader falls behind, output is
// evicted, the reader gets a `truncated` event, and "delivered" counts what
// actually arrived.
//
// The writer and the supervisor share the sandbox's CPU quota, which on the
// default basic type (1/4 vCPU) is the bottleneck; standard-3 (2 vCPU)
// shows the path itself.
func BenchmarkLogThroughput(b *testing.B) {
	for _, it := range []string{"basic", "standard-3"} {
		b.Run(it, func(b *testing.B) { benchLogThroughput(b, it) })
	}
}

func benchLogThroughput(b *testing.B, instanceType string) {
	const size int64 = 1 << 30
	ctx := context.Background()
	n, sb := benchSandboxType(b, "blogs", instanceType)
	argv := []string{"head", "-c", strconv.FormatInt(size, 10), "/dev/zero"}
	var delivered, truncations int64
	var elapsed, produced time.Duration
	b.SetBytes(size)
	for range b.N {
		start := time.Now()
		p, err := sb.Exec(ctx, argv, client.ExecOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for ev, err := range p.Logs(ctx, "", true, true) {
			if err != nil {
				b.Fatal(err)
			}
			switch ev.Type {
			case "stdout":
				delivered += int64(len(ev.Data))
			case "truncated":
				truncations++
			case "exit":
				if ev.Exit.Code != 0 {
					b.Fatalf("exit %+v", ev.Exit)
				}
			}
		}
		elapsed += time.Since(start)
		st, err := p.Status(ctx)
		if err != nil {
			b.Fatal(err)
		}
		produced += st.EndedAt.Sub(st.StartedAt)
	}
	b.StopTimer()
	pipeMBs := hostPipeMBs(b, argv, size)
	inside := sandboxPipeMBs(b, sb, size)

	total := float64(size) * float64(b.N)
	gwMBs := float64(delivered) / elapsed.Seconds() / 1e6
	b.ReportMetric(gwMBs, "delivered-MB/s")
	b.ReportMetric(pipeMBs, "pipe-MB/s")
	b.ReportMetric(float64(truncations)/float64(b.N), "truncated/op")
	fmt.Printf("\nlog throughput: %d x 1 GiB to stdout (`%s`), %s sandbox\n", b.N, strings.Join(argv, " "), instanceType)
	fmt.Printf("  gateway logs?follow=true (Go client)  %7.1f MB/s delivered  %.1f%% of the bytes, %d truncated event(s); writer done in %.2fs, reader in %.2fs\n",
		gwMBs, float64(delivered)/total*100, truncations, produced.Seconds()/float64(b.N), elapsed.Seconds()/float64(b.N))
	fmt.Printf("  local pipe on the host (busybox)      %7.1f MB/s   ratio %.2f (goal >= 0.5)\n", pipeMBs, gwMBs/pipeMBs)
	fmt.Printf("  pipe inside the sandbox (| dd)        %7.1f MB/s   ratio %.2f (same CPU quota as the supervisor)\n", inside, gwMBs/inside)
	rss, hwm := containerRSS(b, n)
	fmt.Printf("  supervisor RSS after the run          %.1f MiB (peak %.1f MiB)\n\n", float64(rss)/(1<<20), float64(hwm)/(1<<20))
}

// hostPipeMBs runs argv with the host's busybox (the binary the test image
// is built from) into a pipe read by this process: the baseline.
func hostPipeMBs(b *testing.B, argv []string, size int64) float64 {
	b.Helper()
	if _, err := os.Stat("/bin/busybox"); err == nil {
		argv = append([]string{"/bin/busybox"}, argv...)
	}
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	piped, err := io.CopyBuffer(io.Discard, out, make([]byte, 256<<10))
	if err != nil || piped != size {
		b.Fatalf("pipe read %d: %v", piped, err)
	}
	_ = cmd.Wait()
	return float64(size) / time.Since(start).Seconds() / 1e6
}

// sandboxPipeMBs times the same writer into a pipe inside the sandbox, read
// by dd: writer and reader share the sandbox's CPU quota, as the writer and
// the supervisor do. On small instance types this, not the host's pipe, is
// the ceiling.
func sandboxPipeMBs(b *testing.B, sb *client.Sandbox, size int64) float64 {
	b.Helper()
	ctx := context.Background()
	script := fmt.Sprintf("head -c %d /dev/zero | dd bs=1M of=/dev/null 2>/dev/null", size)
	p, err := sb.Exec(ctx, []string{"sh", "-c", script}, client.ExecOptions{})
	if err != nil {
		b.Fatal(err)
	}
	st, err := p.Wait(ctx, 10*time.Minute)
	if err != nil || st.Exit == nil || st.Exit.Code != 0 {
		b.Fatalf("in-sandbox pipe: %+v, %v", st, err)
	}
	return float64(size) / st.EndedAt.Sub(st.StartedAt).Seconds() / 1e6
}

// containerRSS reads VmRSS and VmHWM (bytes) of the sandbox's PID 1 from the
// host's /proc, which does not disturb the supervisor.
func containerRSS(b testing.TB, n string) (rss, hwm int64) {
	b.Helper()
	info, err := stack.DockerAPI.ContainerInspect(context.Background(), "berth-"+n)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", info.State.Pid))
	if err != nil {
		b.Fatal(err)
	}
	return statusKB(bytes.NewReader(st), "VmRSS") * 1024, statusKB(bytes.NewReader(st), "VmHWM") * 1024
}

// statusKB finds "Key:   123 kB" in a /proc/<pid>/status text.
func statusKB(r io.Reader, key string) int64 {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && k == key {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return -1
}

// BenchmarkSupervisorRSS: resident memory of PID 1 (the supervisor) in an
// idle sandbox, seen from the host and from inside (an exec reading
// /proc/1/status), beside a busybox `sleep` in the same container.
func BenchmarkSupervisorRSS(b *testing.B) {
	ctx := context.Background()
	n, sb := benchSandbox(b, "brss")
	for range b.N {
		time.Sleep(2 * time.Second) // idle
	}
	host, hostHWM := containerRSS(b, n)
	sl, err := sb.Exec(ctx, []string{"sleep", "1000"}, client.ExecOptions{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := sb.Exec(ctx, []string{"cat", "/proc/1/status", "/proc/" + strconv.Itoa(sl.PID) + "/status"}, client.ExecOptions{})
	if err != nil {
		b.Fatal(err)
	}
	out, err := p.Output(ctx, client.OutputOptions{})
	if err != nil || out.ExitCode != 0 {
		b.Fatalf("cat: %v %s", err, out.Stderr)
	}
	_, _ = sl.Kill(ctx, 9)
	// Two status files back to back: split at the second "Name:".
	text := string(out.Stdout)
	i := strings.Index(text[1:], "\nName:") + 1
	sup, sleeper := text[:i], text[i:]
	inside := statusKB(strings.NewReader(sup), "VmRSS") * 1024
	hwm := statusKB(strings.NewReader(sup), "VmHWM") * 1024
	slRSS := statusKB(strings.NewReader(sleeper), "VmRSS") * 1024
	mib := func(v int64) float64 { return float64(v) / (1 << 20) }
	b.ReportMetric(mib(host), "supervisor-RSS-MiB")
	fmt.Printf("\nsupervisor resident memory, idle sandbox\n")
	fmt.Printf("  PID 1 VmRSS (host /proc, undisturbed) %6.2f MiB (goal < 10 MiB), peak VmHWM %6.2f MiB\n", mib(host), mib(hostHWM))
	fmt.Printf("  PID 1 VmRSS (exec, serving a request) %6.2f MiB, peak VmHWM %6.2f MiB\n", mib(inside), mib(hwm))
	fmt.Printf("  busybox sleep in the same container   %6.2f MiB\n\n", mib(slRSS))
}

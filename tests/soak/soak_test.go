// Package soak is Berth's soak: for a stretch of minutes (SOAK_DURATION,
// default 10m) one stack serves at once 200 log followers, 50 execs a
// second over 20 sandboxes, 10 terminals being typed into, uploads and
// downloads, previews under load and sleeps and wakes in the background.
// It prints the errors (goal 0), p50 and p99 per operation per minute,
// and the resident memory of the gateway, the worker, the supervisors and
// Temporal every 10 s (goal: flat after the warm-up), as tables and one
// PNG (SOAK_PLOT). A benchmark, not part of CI: task soak.
package soak

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// The mix, as the issue sets it.
const (
	execBoxes       = 20
	execRate        = 50 // per second, over execBoxes
	execInflight    = 100
	producers       = 10 // processes whose logs are followed, one a sandbox
	followersEach   = 20 // 200 followers
	terminals       = 10
	transferWorkers = 2
	transferSize    = 1 << 20
	previewBoxes    = 5
	previewLoaders  = 4
	previewPort     = 8080
	previewSize     = 64 << 10
	sleepWakeBoxes  = 2
)

func envDuration(b *testing.B, key string, def time.Duration) time.Duration {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		b.Fatalf("%s=%q: %v", key, v, err)
	}
	return d
}

// BenchmarkSoak runs the mix once, whatever b.N (-benchtime=1x).
func BenchmarkSoak(b *testing.B) {
	run := envDuration(b, "SOAK_DURATION", 10*time.Minute)
	warmup := min(2*time.Minute, run/5)
	plotPath := os.Getenv("SOAK_PLOT")
	if plotPath == "" {
		plotPath = filepath.Join(b.TempDir(), "soak.png")
	}
	ctx := context.Background()
	sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	st, err := stacktest.Start(sctx, stacktest.Options{})
	cancel()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.Close)
	// Not the spec-checking client of the tests: its checks would cost
	// the gateway's host CPU time the figures are about.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}}
	c := client.New(st.URL, st.Token, client.WithHTTPClient(hc))

	setupStart := time.Now()
	boxes, sleepers := setup(b, c, st.HostID)
	blob := make([]byte, previewSize)
	_, _ = rand.Read(blob)
	procs := prepare(b, c, boxes, blob)
	fmt.Printf("\nsoak: %d sandboxes up, %d producers, %d previews in %s; running the mix for %s\n",
		len(boxes)+len(sleepers), len(procs), previewBoxes, time.Since(setupStart).Round(time.Second), run)

	up, err := hostUptime()
	if err != nil {
		b.Fatal(err)
	}
	rec := newRecorder()
	l := &load{c: c, url: st.URL, rec: rec, boot: up}
	runCtx, stop := context.WithTimeout(ctx, run)
	defer stop()
	rss := &rssSampler{st: st, start: rec.start, pids: map[string]int{}}
	var rssDone sync.WaitGroup
	rssDone.Add(1)
	go func() {
		defer rssDone.Done()
		rss.run(runCtx, 10*time.Second, func(err error) { rec.fail("rss-sample", err) })
	}()
	for _, p := range procs {
		for range followersEach {
			l.go_(func() { l.follow(runCtx, p, 60*time.Second) })
		}
	}
	for i := range terminals {
		l.go_(func() { l.terminal(runCtx, boxes[execBoxes-terminals+i]) })
	}
	for w := range transferWorkers {
		l.go_(func() { l.transfers(runCtx, boxes, transferSize, w) })
	}
	for range previewLoaders {
		l.go_(func() { l.previews(runCtx, boxes[:previewBoxes], previewPort, blob) })
	}
	for _, s := range sleepers {
		l.go_(func() { l.sleepWake(runCtx, s, 10*time.Second) })
	}
	l.go_(func() { l.execs(runCtx, boxes, execRate, execInflight) })
	ticker := time.NewTicker(time.Minute)
	for done := false; !done; {
		select {
		case <-runCtx.Done():
			done = true
		case <-ticker.C:
			fmt.Printf("soak: %s, %d errors so far\n", time.Since(rec.start).Round(time.Second), rec.errors())
		}
	}
	ticker.Stop()
	l.wg.Wait()
	rssDone.Wait()

	rec.mu.Lock()
	execs := len(rec.samples[opExec]) + rec.errs[opExec]
	skipped := rec.skipped
	rec.mu.Unlock()
	fmt.Printf("\nSOAK FIGURES (%s; warm-up %s)\n", run, warmup)
	fmt.Printf("  execs sent %d (%.1f/s, goal %d/s); ticks not sent with %d in flight: %d\n",
		execs, float64(execs)/run.Seconds(), execRate, execInflight, skipped)
	rec.table(os.Stdout, run)
	rss.table(os.Stdout, warmup)
	if err := writePlot(plotPath, rss, rec, run); err != nil {
		b.Errorf("plot: %v", err)
	} else {
		fmt.Printf("plot: %s\n", plotPath)
	}
	if n := rec.errors(); n > 0 {
		b.Errorf("%d errors (goal 0)", n)
	}
	if skipped > 0 {
		b.Logf("%d exec ticks were not sent: the host did not keep up with %d/s", skipped, execRate)
	}
}

// setup creates the sandboxes of the mix, running.
func setup(b *testing.B, c *client.Client, host string) (boxes, sleepers []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for i := range execBoxes {
		boxes = append(boxes, fmt.Sprintf("soak-%s-%d", host, i))
	}
	for i := range sleepWakeBoxes {
		sleepers = append(sleepers, fmt.Sprintf("soak-%s-sw%d", host, i))
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for _, n := range append(append([]string(nil), boxes...), sleepers...) {
		g.Go(func() error {
			// basic: lite's 1/16 of a CPU would time its supervisor's
			// throttling, not Berth.
			_, _, err := c.Create(gctx, client.CreateRequest{Name: n, InstanceType: "basic", KeepAlive: true, Start: true})
			if err != nil {
				return fmt.Errorf("create %s: %w", n, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		b.Fatal(err)
	}
	return boxes, sleepers
}

// prepare starts the log producers and the preview servers.
func prepare(b *testing.B, c *client.Client, boxes []string, blob []byte) []*client.Process {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var procs []*client.Process
	for _, n := range boxes[:producers] {
		p, err := c.Sandbox(n).Exec(ctx, []string{"sh", "-c", producerScript}, client.ExecOptions{})
		if err != nil {
			b.Fatalf("producer in %s: %v", n, err)
		}
		procs = append(procs, p)
	}
	for _, n := range boxes[:previewBoxes] {
		sb := c.Sandbox(n)
		if _, err := sb.WriteFile(ctx, "/workspace/www/blob", bytes.NewReader(blob), client.WriteOptions{Mkdir: true}); err != nil {
			b.Fatal(err)
		}
		if _, err := sb.Exec(ctx, []string{"httpd", "-f", "-p", strconv.Itoa(previewPort), "-h", "/workspace/www"}, client.ExecOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Expose(ctx, n, previewPort, true); err != nil {
			b.Fatal(err)
		}
		// Served once the server listens.
		for {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL()+"/blob", nil)
			req.Host = fmt.Sprintf("%d-%s.localhost", previewPort, n)
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 && bytes.Equal(body, blob) {
					break
				}
			}
			if ctx.Err() != nil {
				b.Fatalf("preview of %s never served the file: %v", n, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	return procs
}

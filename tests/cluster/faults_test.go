package cluster

import (
	"context"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/clustertest"
)

// span is when one completed lifecycle ran.
type span struct{ start, end time.Time }

// across counts the lifecycles that were in progress at t: the fault hit
// them, it did not fall between them.
func across(spans []span, t time.Time) int {
	n := 0
	for _, s := range spans {
		if s.start.Before(t) && s.end.After(t) {
			n++
		}
	}
	return n
}

// traffic runs lifecycles on `loops` goroutines until stop is closed, then
// lets the ones in progress finish; it returns when each completed one ran
// and the errors.
func (c *cluster) traffic(ctx context.Context, r *retries, loops int, prefix string, stop <-chan struct{}) (done []span, errs []error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	cs := c.clients()
	for l := 0; l < loops; l++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("%s-%s-%d-%d", prefix, c.HostID, l, i)
				start := time.Now()
				err := lifecycle(ctx, cs, r, name)
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					done = append(done, span{start, time.Now()})
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return done, errs
}

// trafficResult is what background traffic did.
type trafficResult struct {
	spans []span
	errs  []error
}

// background runs three traffic loops until the returned finish is called,
// which waits for them and returns what they did.
func (c *cluster) background(ctx context.Context, r *retries, prefix string) (finish func() trafficResult) {
	stop := make(chan struct{})
	res := make(chan trafficResult, 1)
	go func() {
		spans, errs := c.traffic(ctx, r, 3, prefix, stop)
		res <- trafficResult{spans, errs}
	}()
	return func() trafficResult { close(stop); return <-res }
}

// TestClusterSurvivesNodeKills: sandboxes go through their whole lives
// while one Temporal node is SIGKILLed and restarted, then another. No call
// fails beyond the documented retry (503/504 with Retry-After), every
// sandbox reaches each state it was sent to, and every live event stream
// equals the stored one.
func TestClusterSurvivesNodeKills(t *testing.T) {
	c := needFull(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var r retries
	finish := c.background(ctx, &r, "kill")
	time.Sleep(20 * time.Second)
	var kills []time.Time
	for _, i := range []int{1, 2} {
		t.Logf("SIGKILL Temporal node %d (%s)", i+1, clustertest.NodeIPs[i])
		kills = append(kills, time.Now())
		c.KillNode(i)
		time.Sleep(20 * time.Second)
		t.Logf("restart node %d", i+1)
		if err := c.StartNode(ctx, i); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Second)
	}
	out := finish()
	for _, err := range out.errs {
		t.Error(err)
	}
	for i, k := range kills {
		if n := across(out.spans, k); n == 0 {
			t.Errorf("no lifecycle was in progress when node %d was killed", i+2)
		} else {
			t.Logf("kill %d hit %d lifecycles in progress", i+1, n)
		}
	}
	t.Logf("%d lifecycles completed over two node kills; documented retries: %s", len(out.spans), r.String())
}

// TestClusterRecoversFromPostgresRestart: PostgreSQL crashes (immediate
// shutdown) under traffic and comes back 10 s later; Temporal and Berth
// reconnect by themselves. While the database is down, calls may answer
// 503/504 (retried); afterwards every lifecycle completes.
func TestClusterRecoversFromPostgresRestart(t *testing.T) {
	c := needFull(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	var r retries
	finish := c.background(ctx, &r, "pg")
	time.Sleep(20 * time.Second)
	t.Log("PostgreSQL: immediate shutdown (SIGQUIT)")
	down := time.Now()
	c.StopPostgres(syscall.SIGQUIT)
	time.Sleep(10 * time.Second)
	t.Log("PostgreSQL: start")
	if err := c.StartPostgres(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Second)
	out := finish()
	for _, err := range out.errs {
		t.Error(err)
	}
	if n := across(out.spans, down); n == 0 {
		t.Error("no lifecycle was in progress when PostgreSQL went down")
	} else {
		t.Logf("the outage hit %d lifecycles in progress", n)
	}
	// After recovery a fresh lifecycle completes.
	var after retries
	if err := lifecycle(ctx, c.clients(), &after, "pg-after-"+c.HostID); err != nil {
		t.Fatalf("after PostgreSQL came back: %v", err)
	}
	t.Logf("%d lifecycles completed across the restart; documented retries: %s; after: %s", len(out.spans), r.String(), after.String())
}

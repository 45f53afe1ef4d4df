package cluster

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// traffic runs lifecycles on `loops` goroutines until stop is closed, then
// lets the ones in progress finish; it returns how many completed and the
// errors.
func (c *cluster) traffic(ctx context.Context, r *retries, loops int, prefix string, stop <-chan struct{}) (done int64, errs []error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var n atomic.Int64
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
				name := fmt.Sprintf("%s-%s-%d-%d", prefix, c.hostID, l, i)
				if err := lifecycle(ctx, cs, r, name); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return n.Load(), errs
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
	stop := make(chan struct{})
	type result struct {
		n    int64
		errs []error
	}
	res := make(chan result, 1)
	go func() {
		n, errs := c.traffic(ctx, &r, 3, "kill", stop)
		res <- result{n, errs}
	}()
	time.Sleep(20 * time.Second)
	for _, i := range []int{1, 2} {
		t.Logf("SIGKILL Temporal node %d (%s)", i+1, nodeIPs[i])
		c.KillNode(i)
		time.Sleep(20 * time.Second)
		t.Logf("restart node %d", i+1)
		if err := c.StartNode(ctx, i); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Second)
	}
	close(stop)
	out := <-res
	for _, err := range out.errs {
		t.Error(err)
	}
	if out.n < 3 {
		t.Errorf("only %d lifecycles completed", out.n)
	}
	t.Logf("%d lifecycles completed over two node kills; documented retries: %s", out.n, r.String())
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
	stop := make(chan struct{})
	type result struct {
		n    int64
		errs []error
	}
	res := make(chan result, 1)
	go func() {
		n, errs := c.traffic(ctx, &r, 3, "pg", stop)
		res <- result{n, errs}
	}()
	time.Sleep(20 * time.Second)
	t.Log("PostgreSQL: immediate shutdown (SIGQUIT)")
	c.StopPostgres(syscall.SIGQUIT)
	time.Sleep(10 * time.Second)
	t.Log("PostgreSQL: start")
	if err := c.StartPostgres(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Second)
	close(stop)
	out := <-res
	for _, err := range out.errs {
		t.Error(err)
	}
	// After recovery a fresh lifecycle completes without any retry.
	var after retries
	if err := lifecycle(ctx, c.clients(), &after, "pg-after-"+c.hostID); err != nil {
		t.Fatalf("after PostgreSQL came back: %v", err)
	}
	t.Logf("%d lifecycles completed across the restart; documented retries: %s; after: %s", out.n, r.String(), after.String())
}

package console

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	berth "github.com/berthdev/berth/client"
)

// BenchmarkListFirstPaint: the console's sandbox list with N sandboxes
// (BERTH_BENCH_SANDBOXES, default 1000; created, never started): the time
// from navigating to /ui/ until the table holds every row, beside the
// same run's baseline, one GET /v1/sandboxes from Go (what the page must
// fetch anyway). Three samples each.
//
//	go test ./tests/console -run '^$' -bench ListFirstPaint -benchtime 1x
func BenchmarkListFirstPaint(b *testing.B) {
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("BERTH_BENCH_SANDBOXES")); err == nil && v > 0 {
		n = v
	}
	bg := context.Background()
	admin := stack.Client()
	prefix := fmt.Sprintf("fp%d", time.Now().UnixNano()%1e6)
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 4)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if _, _, err := admin.Create(bg, berth.CreateRequest{Name: fmt.Sprintf("%s-%04d", prefix, i)}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	fmt.Printf("created %d sandboxes in %s\n", n, time.Since(start).Round(time.Millisecond))

	ctx := browserCtx(b)
	if err := chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/login"), chromedp.WaitVisible(css("#token")),
		chromedp.SetValue(css("#token"), stack.Token), chromedp.Click(css("#signin")), chromedp.WaitVisible(css("#sandboxes"))); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		for s := range 3 {
			t0 := time.Now()
			if _, err := admin.List(bg, ""); err != nil {
				b.Fatal(err)
			}
			api := time.Since(t0)
			t0 = time.Now()
			if err := chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/?r="+strconv.Itoa(s))); err != nil {
				b.Fatal(err)
			}
			expr := `document.querySelectorAll("#sandboxes tbody tr").length >= ` + strconv.Itoa(n)
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
				b.Fatal(err)
			}
			paint := time.Since(t0)
			// The page's own fetch of the list, from the browser's timing.
			fetchMs, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`performance.getEntriesByType("resource").filter(e => e.name.endsWith("/v1/sandboxes")).map(e => e.duration).pop() || 0`))
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("sample %d: list of %d painted in %s (its GET /v1/sandboxes inside: %.0f ms); baseline GET /v1/sandboxes from Go %s\n",
				s+1, n, paint.Round(time.Millisecond), fetchMs, api.Round(time.Millisecond))
		}
	}
}

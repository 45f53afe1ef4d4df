package console

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	berth "github.com/berthdev/berth/client"
)

// BenchmarkListFirstPaint: the console's sandbox list, first with a few
// sandboxes (the baseline, BERTH_BENCH_BASELINE, default 10), then with
// many (BERTH_BENCH_SANDBOXES, default 1000; created, never started), in
// the same run and browser. Each sample is the time from navigating to
// /ui/ until the first page of rows is on screen (the list paints its
// first 100 before asking for the rest), and until every row is. Beside
// them, the list API from Go: one page of 100 and the whole list. The
// sandboxes are destroyed at the end. It makes 1,000 sandboxes: run it
// under the shared lock.
//
//	go test -c -o /tmp/console.test ./tests/console
//	flock /work/wt/heavy.lock /tmp/console.test -test.run '^$' -test.bench ListFirstPaint -test.benchtime 1x
func BenchmarkListFirstPaint(b *testing.B) {
	few, many := envInt("BERTH_BENCH_BASELINE", 10), envInt("BERTH_BENCH_SANDBOXES", 1000)
	admin := stack.Client()
	prefix := fmt.Sprintf("fp%d", time.Now().UnixNano()%1e6)
	var made []string
	b.Cleanup(func() { destroyAll(b, admin, made) })

	ctx := browserCtx(b)
	if err := chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/login"), chromedp.WaitVisible(css("#token")),
		chromedp.SetValue(css("#token"), stack.Token), chromedp.Click(css("#signin")), chromedp.WaitVisible(css("#sandboxes"))); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		for _, n := range []int{few, many} {
			made = append(made, createMany(b, admin, prefix, len(made), n-len(made))...)
			settle(b, admin, n)
			for s := range 3 {
				listSample(b, ctx, admin, n, s)
			}
		}
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// listSample measures one navigation to the list of n sandboxes.
func listSample(b *testing.B, ctx context.Context, admin *berth.Client, n, s int) {
	bg := context.Background()
	t0 := time.Now()
	if r := stack.Do(b, "GET", "/v1/sandboxes?limit=100", nil); r.Status != 200 {
		b.Fatalf("a page of the list: %d %s", r.Status, r.Body)
	}
	apiPage := time.Since(t0)
	t0 = time.Now()
	if _, err := admin.List(bg, ""); err != nil {
		b.Fatal(err)
	}
	apiAll := time.Since(t0)

	t0 = time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(stack.URL+"/ui/?r="+strconv.Itoa(n)+"-"+strconv.Itoa(s))); err != nil {
		b.Fatal(err)
	}
	first := min(n, 100)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#sandboxes tbody tr").length >= `+strconv.Itoa(first))); err != nil {
		b.Fatal(err)
	}
	paint := time.Since(t0)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("#sandboxes tbody tr").length >= `+strconv.Itoa(n)+
		` && document.querySelector("#sandboxes tbody").dataset.page === "all"`)); err != nil {
		b.Fatal(err)
	}
	all := time.Since(t0)
	// The page's own fetches, from the browser's timing.
	fetches, err := chromedp.Run(ctx, chromedp.Evaluate[string](`performance.getEntriesByType("resource").filter(e => e.name.includes("/v1/sandboxes"))
		.map(e => (e.name.includes("limit=") ? "page " : "all ") + Math.round(e.duration) + " ms").join(", ")`))
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("%4d sandboxes, sample %d: first page painted %s, every row %s (the page's fetches: %s); from Go: a page of 100 %s, the whole list %s\n",
		n, s+1, paint.Round(time.Millisecond), all.Round(time.Millisecond), fetches, apiPage.Round(time.Millisecond), apiAll.Round(time.Millisecond))
}

// settle waits until the whole list answers with all n sandboxes: right
// after a burst of creates the workers still run every new workflow's
// first tasks, and the dev server on a shared machine may miss its health
// checks (the gateway then answers TEMPORAL_UNAVAILABLE). The samples
// measure the list, not the burst's tail.
func settle(b *testing.B, admin *berth.Client, n int) {
	start := time.Now()
	for tries := 1; ; tries++ {
		l, err := admin.List(context.Background(), "")
		if err == nil && len(l) >= n {
			fmt.Printf("the list answered all %d sandboxes %s after the creates (%d tries)\n", n, time.Since(start).Round(time.Millisecond), tries)
			return
		}
		if time.Since(start) > 3*time.Minute {
			b.Fatalf("the list did not answer all %d sandboxes in 3 minutes (last: %d, %v)", n, len(l), err)
		}
		time.Sleep(2 * time.Second)
	}
}

// createMany creates k sandboxes (not started) named prefix-from…
func createMany(b *testing.B, admin *berth.Client, prefix string, from, k int) []string {
	names := make([]string, k)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%04d", prefix, from+i)
	}
	start := time.Now()
	forEach(b, names, func(n string) error {
		_, _, err := admin.Create(context.Background(), berth.CreateRequest{Name: n})
		return err
	})
	fmt.Printf("created %d sandboxes in %s\n", k, time.Since(start).Round(time.Millisecond))
	return names
}

func destroyAll(b *testing.B, admin *berth.Client, names []string) {
	start := time.Now()
	forEach(b, names, func(n string) error {
		_, err := admin.Destroy(context.Background(), n)
		return err
	})
	fmt.Printf("destroyed %d sandboxes in %s\n", len(names), time.Since(start).Round(time.Millisecond))
}

// forEach runs f on every name, eight at a time, and fails on the first
// error after all ran.
func forEach(b *testing.B, names []string, f func(string) error) {
	var wg sync.WaitGroup
	var first atomic.Value
	sem := make(chan struct{}, 8)
	for _, n := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(n); err != nil {
				first.CompareAndSwap(nil, err)
			}
		}()
	}
	wg.Wait()
	if err, _ := first.Load().(error); err != nil {
		b.Fatal(err)
	}
}

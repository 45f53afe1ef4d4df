package burst

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// The burst's own breakdown: where its creates' time went, read from
// their workflows' histories (how long each workflow task waited for a
// worker, how long the worker held it, which ones timed out) and from the
// worker's SDK metrics over the burst. A figure without its cause is not
// enough to act on: the third run's fix came from exactly these.

// taskFigures are one burst's workflow-task timings over all its workflows.
type taskFigures struct {
	workflows     int
	firstDispatch []time.Duration // started: first workflow task's schedule → start
	dispatch      []time.Duration // every workflow task's schedule → start
	held          []time.Duration // every completed workflow task's start → complete
	toRunning     []time.Duration // workflow start → the start Update's (or the first boot's) completion
	timedOut      map[string]int  // timed-out workflow tasks by timeout type
	failed        map[string]int  // failed workflow tasks by cause
	hit           int             // workflows with a workflow task that timed out or failed
	unread        int
}

// traceHistories reads the histories of the burst's workflows (names
// prefix-<host>-i) up to their first completed Update.
func traceHistories(s *stacktest.Stack, prefix string) *taskFigures {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	f := &taskFigures{timedOut: map[string]int{}, failed: map[string]int{}}
	var mu sync.Mutex
	eachSandbox(s, prefix, func(name string) {
		h := &historypb.History{}
		it := s.Temporal.GetWorkflowHistory(ctx, contract.WorkflowID(name), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				break
			}
			h.Events = append(h.Events, ev)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(h.Events) == 0 {
			f.unread++
			return
		}
		f.add(h)
	})
	return f
}

func (f *taskFigures) add(h *historypb.History) {
	f.workflows++
	start := h.Events[0].GetEventTime().AsTime()
	scheduled := map[int64]time.Time{}
	started := map[int64]time.Time{}
	first, hit := true, false
	for _, ev := range h.Events {
		at := ev.GetEventTime().AsTime()
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
			scheduled[ev.GetEventId()] = at
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			a := ev.GetWorkflowTaskStartedEventAttributes()
			started[ev.GetEventId()] = at
			if t, ok := scheduled[a.GetScheduledEventId()]; ok {
				d := at.Sub(t)
				f.dispatch = append(f.dispatch, d)
				if first {
					f.firstDispatch = append(f.firstDispatch, d)
					first = false
				}
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			if t, ok := started[ev.GetWorkflowTaskCompletedEventAttributes().GetStartedEventId()]; ok {
				f.held = append(f.held, at.Sub(t))
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
			a := ev.GetWorkflowTaskTimedOutEventAttributes()
			what := strings.TrimPrefix(a.GetTimeoutType().String(), "TIMEOUT_TYPE_")
			if t, ok := started[a.GetStartedEventId()]; ok && a.GetStartedEventId() != 0 {
				what += fmt.Sprintf(" (held %.1fs)", at.Sub(t).Seconds())
			}
			f.timedOut[what]++
			hit = true
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			f.failed[strings.TrimPrefix(ev.GetWorkflowTaskFailedEventAttributes().GetCause().String(), "WORKFLOW_TASK_FAILED_CAUSE_")]++
			hit = true
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
			f.toRunning = append(f.toRunning, at.Sub(start))
			if hit {
				f.hit++
			}
			return
		}
	}
	if hit {
		f.hit++
	}
}

func quantiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	slices.Sort(ds)
	q := func(p float64) float64 { return ds[min(len(ds)-1, int(float64(len(ds))*p))].Seconds() }
	return fmt.Sprintf("n %d p50 %.2fs p90 %.2fs p99 %.2fs max %.2fs", len(ds), q(.5), q(.9), q(.99), ds[len(ds)-1].Seconds())
}

func (f *taskFigures) print(what string) {
	fmt.Printf("  %s: %d workflows read (%d unreadable)\n", what, f.workflows, f.unread)
	fmt.Printf("    workflow start → start Update completed  %s\n", quantiles(f.toRunning))
	fmt.Printf("    first workflow task, schedule → start    %s\n", quantiles(f.firstDispatch))
	fmt.Printf("    every workflow task, schedule → start    %s\n", quantiles(f.dispatch))
	fmt.Printf("    every workflow task, start → complete    %s\n", quantiles(f.held))
	fmt.Printf("    workflow tasks timed out %v, failed %v; workflows hit %d\n", f.timedOut, f.failed, f.hit)
}

// sdkMetrics is a scrape of a worker's /metrics: each histogram's and
// counter's series summed over their labels but the ones kept.
type sdkMetrics map[string]float64

// scrapeSDK reads the temporal_* series of the worker's /metrics.
func scrapeSDK(s *stacktest.Stack) sdkMetrics {
	return scrape(s.MetricsURL("worker"), func(name string) bool { return strings.HasPrefix(name, "temporal_") })
}

// scrapeServer reads the dev server's own metrics on persistence, matching
// and its frontend's calls (its metrics port is on its command line).
func scrapeServer(s *stacktest.Stack) sdkMetrics {
	pid, err := os.ReadFile(filepath.Join(s.Dir, "temporal", "temporal.pid"))
	if err != nil {
		return sdkMetrics{}
	}
	cmdline, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/cmdline")
	if err != nil {
		return sdkMetrics{}
	}
	args := strings.Split(string(cmdline), "\x00")
	i := slices.Index(args, "--metrics-port")
	if i < 0 || i+1 >= len(args) {
		return sdkMetrics{}
	}
	return scrape("http://127.0.0.1:"+args[i+1]+"/metrics", func(name string) bool {
		for _, p := range []string{"persistence_latency", "persistence_errors", "service_latency", "service_errors",
			"poll_success", "poll_timeouts", "forwarded", "syncmatch_latency", "asyncmatch_latency", "local_to_local_matches",
			"local_to_remote_matches", "remote_to_local_matches", "remote_to_remote_matches", "task_write_latency",
			"sticky_task_queue", "workflow_task_attempt", "start_workflow_execution", "lock_latency", "service_error_with_type"} {
			if strings.HasPrefix(name, p) {
				return true
			}
		}
		return false
	})
}

func scrape(url string, want func(name string) bool) sdkMetrics {
	m := sdkMetrics{}
	resp, err := http.Get(url)
	if err != nil {
		return m
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "#") || !want(line[:max(0, strings.IndexAny(line, "{ "))]) {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[sp+1:], 64)
		if err != nil {
			continue
		}
		series := line[:sp]
		name, labels, _ := strings.Cut(series, "{")
		key := name
		// Keep le (buckets), the task queue's kind and the operation.
		for _, l := range strings.Split(strings.TrimSuffix(labels, "}"), ",") {
			k, val, _ := strings.Cut(l, "=")
			switch k {
			case "le", "operation", "poller_type", "worker_type", "activity_type", "error_type", "task_type", "service_name":
				key += " " + k + "=" + strings.Trim(val, `"`)
			}
		}
		m[key] += v
	}
	return m
}

// printSDK prints what the worker's SDK counted between two scrapes:
// workflow-task and local-activity latencies (count, mean, p50/p99 from
// the buckets), failures, slots and sticky cache.
func printSDK(before, after sdkMetrics) {
	d := sdkMetrics{}
	for k, v := range after {
		d[k] = v - before[k]
	}
	type hist struct {
		count, sum float64
		buckets    map[float64]float64
	}
	hs := map[string]*hist{}
	var other []string
	for k, v := range d {
		name, rest, _ := strings.Cut(k, " ")
		base := name
		switch {
		case strings.HasSuffix(name, "_bucket"):
			base = strings.TrimSuffix(name, "_bucket")
		case strings.HasSuffix(name, "_sum"):
			base = strings.TrimSuffix(name, "_sum")
		case strings.HasSuffix(name, "_count"):
			base = strings.TrimSuffix(name, "_count")
		default:
			if v != 0 {
				other = append(other, fmt.Sprintf("%s %g", k, v))
			}
			continue
		}
		var le float64 = math.NaN()
		var keep []string
		for _, l := range strings.Fields(rest) {
			if s, ok := strings.CutPrefix(l, "le="); ok {
				le, _ = strconv.ParseFloat(s, 64)
				if s == "+Inf" {
					le = math.Inf(1)
				}
				continue
			}
			keep = append(keep, l)
		}
		key := strings.Join(append([]string{base}, keep...), " ")
		h := hs[key]
		if h == nil {
			h = &hist{buckets: map[float64]float64{}}
			hs[key] = h
		}
		switch {
		case strings.HasSuffix(name, "_bucket"):
			h.buckets[le] += v
		case strings.HasSuffix(name, "_sum"):
			h.sum += v
		default:
			h.count += v
		}
	}
	keys := make([]string, 0, len(hs))
	for k, h := range hs {
		if h.count > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		h := hs[k]
		les := make([]float64, 0, len(h.buckets))
		for le := range h.buckets {
			les = append(les, le)
		}
		sort.Float64s(les)
		q := func(p float64) string {
			for _, le := range les {
				if h.buckets[le] >= p*h.count {
					return fmt.Sprintf("≤%gs", le)
				}
			}
			return "?"
		}
		fmt.Printf("    %-80s n %5.0f mean %7.3fs p50 %s p99 %s\n", k, h.count, h.sum/h.count, q(.5), q(.99))
	}
	sort.Strings(other)
	for _, o := range other {
		fmt.Printf("    %s\n", o)
	}
}

package cluster

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/internal/clustertest"
	"github.com/berthdev/berth/workflows/contract"
)

// The failover timeline: where the time of a call sent right after a node
// was SIGKILLed went, read from the surviving nodes' logs (membership and
// shard ownership) and from each sandbox's workflow history (when its
// shard, its workflow task queue and its host's activity queue served it
// again). Every figure is relative to the kill.

// nodeEvents is what the surviving nodes logged after the kill: when each
// service's ring first lost the killed node (membership declared it
// faulty), and when they acquired its history shards.
type nodeEvents struct {
	ringDropped map[string]time.Duration // service -> first survivor's ring without the node
	shards      int
	firstShard  time.Duration
	lastShard   time.Duration
}

// temporalLogLine is the part of a Temporal server's JSON log line read here.
type temporalLogLine struct {
	TS        string   `json:"ts"`
	Msg       string   `json:"msg"`
	Service   string   `json:"service"`
	Addresses []string `json:"addresses"`
	ShardID   int      `json:"shard-id"`
}

// readNodeEvents reads the surviving nodes' logs after kill.
func (c *cluster) readNodeEvents(killed int, kill time.Time) nodeEvents {
	ev := nodeEvents{ringDropped: map[string]time.Duration{}}
	dead := clustertest.NodeIPs[killed] + ":"
	for i := range clustertest.NodeIPs {
		if i == killed {
			continue
		}
		f, err := os.Open(filepath.Join(c.Dir, fmt.Sprintf("node%d.log", i+1)))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !strings.Contains(string(line), "Current reachable members") && !strings.Contains(string(line), "Acquired shard") {
				continue
			}
			var l temporalLogLine
			if json.Unmarshal(line, &l) != nil {
				continue
			}
			ts, err := time.Parse("2006-01-02T15:04:05.000Z0700", l.TS)
			if err != nil || ts.Before(kill) {
				continue
			}
			at := ts.Sub(kill)
			switch l.Msg {
			case "Current reachable members":
				if !strings.Contains(strings.Join(l.Addresses, " "), dead) {
					if d, ok := ev.ringDropped[l.Service]; !ok || at < d {
						ev.ringDropped[l.Service] = at
					}
				}
			case "Acquired shard":
				if ev.shards == 0 || at < ev.firstShard {
					ev.firstShard = at
				}
				ev.lastShard = max(ev.lastShard, at)
				ev.shards++
			}
		}
		f.Close()
	}
	return ev
}

func (e nodeEvents) String() string {
	var svcs []string
	for s, d := range e.ringDropped {
		svcs = append(svcs, fmt.Sprintf("%s %s", s, secs(d)))
	}
	sort.Strings(svcs)
	return fmt.Sprintf("rings without the node: %s; %d shards acquired by survivors %s-%s",
		strings.Join(svcs, ", "), e.shards, secs(e.firstShard), secs(e.lastShard))
}

// callSteps is when the server side of one sleep got each step done.
type callSteps struct {
	wftScheduled, wftStarted, accepted time.Duration // the workflow task that took the update
	actScheduled, actStarted           time.Duration // the activity the sleep ran (0: none)
	completed, answered                time.Duration
	stoppedLocally                     bool // by StopLocal, in the workflow's worker
}

func (s callSteps) String() string {
	stop := fmt.Sprintf("activity sched %s start %s", secs(s.actScheduled), secs(s.actStarted))
	if s.stoppedLocally {
		stop = "stopped in the workflow's worker"
	}
	return fmt.Sprintf("wft sched %s start %s, accepted %s, %s, completed %s, answered %s",
		secs(s.wftScheduled), secs(s.wftStarted), secs(s.accepted), stop, secs(s.completed), secs(s.answered))
}

func secs(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

// temporalClient dials the cluster as Berth does, with the admin
// certificate.
func (c *cluster) temporalClient(ctx context.Context) (client.Client, error) { return c.Dial(ctx) }

// steps reads from the sandbox's workflow history when the sleep sent at
// kill+sent was served, step by step.
func steps(ctx context.Context, tc client.Client, name string, kill time.Time, answered time.Duration) (callSteps, error) {
	s := callSteps{answered: answered}
	it := tc.GetWorkflowHistory(ctx, contract.WorkflowID(name), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			return s, err
		}
		t := e.GetEventTime().AsTime()
		if t.Before(kill) {
			continue
		}
		at := t.Sub(kill)
		set := func(d *time.Duration) {
			if *d == 0 {
				*d = at
			}
		}
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
			if s.accepted == 0 {
				s.wftScheduled = at // the last one before the acceptance
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			if s.accepted == 0 {
				s.wftStarted = at
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
			set(&s.accepted)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			set(&s.actScheduled)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			set(&s.actStarted)
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED:
			set(&s.completed)
		case enumspb.EVENT_TYPE_MARKER_RECORDED:
			for _, p := range e.GetMarkerRecordedEventAttributes().GetDetails()["data"].GetPayloads() {
				s.stoppedLocally = s.stoppedLocally || strings.Contains(string(p.GetData()), `"`+contract.ActivityStopLocal+`"`)
			}
		}
	}
	return s, nil
}

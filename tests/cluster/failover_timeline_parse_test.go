package cluster

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/clustertest"
)

// The timeline reads the Temporal server's JSON log lines as v1.32 writes
// them; a change of format would leave the benchmark's timeline empty, so
// it is checked here without a cluster.
func TestReadNodeEventsFromTemporalLogs(t *testing.T) {
	c := &cluster{&clustertest.Cluster{Dir: t.TempDir()}}
	kill := time.Date(2026, 12, 6, 9, 0, 0, 0, time.UTC)
	node1 := `{"level":"info","ts":"2026-12-06T08:59:59.000Z","msg":"Current reachable members","component":"service-resolver","service":"history","addresses":["127.0.0.2:7234","127.0.0.3:7234","127.0.0.4:7234"]}
{"level":"info","ts":"2026-12-06T09:00:05.300Z","msg":"Current reachable members","component":"service-resolver","service":"history","addresses":["127.0.0.2:7234","127.0.0.4:7234"]}
{"level":"info","ts":"2026-12-06T09:00:05.250Z","msg":"Current reachable members","component":"service-resolver","service":"matching","addresses":["127.0.0.2:7235","127.0.0.4:7235"]}
{"level":"info","ts":"2026-12-06T09:00:05.600Z","msg":"Acquired shard","shard-id":7}
not json
`
	node3 := `{"level":"info","ts":"2026-12-06T09:00:05.200Z","msg":"Current reachable members","component":"service-resolver","service":"history","addresses":["127.0.0.2:7234","127.0.0.4:7234"]}
{"level":"info","ts":"2026-12-06T09:00:06.100Z","msg":"Acquired shard","shard-id":9}
`
	for name, body := range map[string]string{"node1.log": node1, "node3.log": node3, "node2.log": `{"ts":"2026-12-06T09:00:01.000Z","msg":"Acquired shard"}`} {
		if err := os.WriteFile(filepath.Join(c.Dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ev := c.readNodeEvents(1, kill) // node 2, 127.0.0.3, was killed: its own log is not read
	if got := ev.ringDropped["history"]; got != 5200*time.Millisecond {
		t.Errorf("history ring dropped the node at %v, want 5.2s", got)
	}
	if got := ev.ringDropped["matching"]; got != 5250*time.Millisecond {
		t.Errorf("matching ring dropped the node at %v, want 5.25s", got)
	}
	if ev.shards != 2 || ev.firstShard != 5600*time.Millisecond || ev.lastShard != 6100*time.Millisecond {
		t.Errorf("shards %d from %v to %v, want 2 from 5.6s to 6.1s", ev.shards, ev.firstShard, ev.lastShard)
	}
	t.Log(ev)
}

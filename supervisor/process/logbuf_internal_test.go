package process

import (
	"testing"

	"github.com/berthdev/berth/api"
)

// fill appends n output chunks of size bytes.
func fill(b *logBuffer, n, size int) {
	for range n {
		b.append(streamStdout, make([]byte, size), nil)
	}
}

func TestLogBufferKeepsAtLeastTheBudget(t *testing.T) {
	const limit = 10_000
	b := newLogBuffer(limit, nil)
	fill(b, 100, 936) // 1000 bytes each with bookkeeping
	if got := b.retained(); got < limit || got >= limit+1000 {
		t.Fatalf("retained %d bytes, want [%d, %d)", got, limit, limit+1000)
	}
	b.append(streamExit, nil, &api.ExitStatus{})
	if got := b.retained(); got < limit {
		t.Fatalf("the exit event left %d bytes, want at least %d", got, limit)
	}
}

func TestLogBufferHoldsOutputForAFollowerWithinTheSlack(t *testing.T) {
	const limit = 10_000
	budget := &logBudget{limit: 1 << 30}
	b := newLogBuffer(limit, budget)
	id := b.follow(0)
	fill(b, 30, 936)
	if snap := b.read(0, id); snap.truncated || b.retained() != 30_000 {
		t.Fatalf("a follower 30 KB behind: truncated=%v, retained %d; want nothing evicted", snap.truncated, b.retained())
	}
	fill(b, 30, 936) // 60 KB behind: beyond slackFactor x limit
	if got := b.retained(); got > slackFactor*limit+1000 {
		t.Fatalf("retained %d bytes for a stalled follower, cap %d", got, slackFactor*limit)
	}
	if snap := b.read(0, id); !snap.truncated {
		t.Fatal("a follower behind by more than the slack is not told about the gap")
	}
	// Caught up, it releases what was kept for it on the next append ...
	b.read(b.lastSeq(), id)
	fill(b, 1, 936)
	if got := b.retained(); got >= limit+1000 {
		t.Fatalf("follower caught up, still %d bytes retained", got)
	}
	// ... and a follower that leaves releases it at once.
	b.unfollow(id)
	id2 := b.follow(b.lastSeq())
	fill(b, 20, 936)
	b.unfollow(id2)
	if got := b.retained(); got >= limit+1000 {
		t.Fatalf("follower gone, still %d bytes retained", got)
	}
	if got := budget.total.Load(); got != int64(b.retained()) {
		t.Fatalf("container-wide total %d, buffer holds %d", got, b.retained())
	}
}

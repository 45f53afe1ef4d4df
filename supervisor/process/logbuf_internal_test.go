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
	if got := b.data(); got < limit || got >= limit+936 {
		t.Fatalf("kept %d bytes of output, want [%d, %d)", got, limit, limit+936)
	}
	b.append(streamExit, nil, &api.ExitStatus{})
	if got := b.retained(); got < limit {
		t.Fatalf("the exit event left %d bytes, want at least %d", got, limit)
	}
}

// Output read in small pieces (a busy host) still keeps the whole floor;
// a stream of tiny writes is bounded by memory, bookkeeping included.
func TestLogBufferKeepsTheFloorOfSmallReadsAndBoundsTinyOnes(t *testing.T) {
	const limit = 10_000
	b := newLogBuffer(limit, nil)
	fill(b, 200, 300) // 64 bytes of bookkeeping each: a fifth more
	if got := b.data(); got < limit || got >= limit+300 {
		t.Fatalf("kept %d bytes of output from small reads, want [%d, %d)", got, limit, limit+300)
	}
	b = newLogBuffer(limit, nil)
	fill(b, 2000, 1) // bookkeeping 64 times the output
	if got := b.retained(); got > overheadFactor*limit+chunkOverhead+1 {
		t.Fatalf("tiny writes hold %d bytes with bookkeeping, cap %d", got, overheadFactor*limit)
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
	if got := b.data(); got >= limit+936 {
		t.Fatalf("follower caught up, still %d bytes of output retained", got)
	}
	// ... and a follower that leaves releases it at once.
	b.unfollow(id)
	id2 := b.follow(b.lastSeq())
	fill(b, 20, 936)
	b.unfollow(id2)
	if got := b.data(); got >= limit+936 {
		t.Fatalf("follower gone, still %d bytes of output retained", got)
	}
	if got := budget.total.Load(); got != int64(b.retained()) {
		t.Fatalf("container-wide total %d, buffer holds %d", got, b.retained())
	}
}

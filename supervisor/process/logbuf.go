package process

import (
	"math"
	"sync"
	"time"

	"github.com/berthdev/berth/api"
)

// Stream identifies where a log chunk came from.
type stream uint8

const (
	streamStdout stream = iota + 1
	streamStderr
	streamExit
)

func (s stream) String() string {
	switch s {
	case streamStdout:
		return "stdout"
	case streamStderr:
		return "stderr"
	case streamExit:
		return "exit"
	}
	return "unknown"
}

// chunk is one log event: a read from stdout/stderr, or the final exit.
// Chunks are immutable once appended, so readers may keep references to
// them after releasing the buffer's lock.
type chunk struct {
	seq    uint64
	stream stream
	at     time.Time
	data   []byte
	exit   *api.ExitStatus
}

// chunkOverhead approximates the bookkeeping cost of a chunk so that a
// stream of tiny writes cannot grow memory far beyond the byte budget.
const chunkOverhead = 64

// logBuffer keeps the newest output of one process within a byte budget.
// Writers (the pipe readers) never block on readers: a reader that falls
// behind finds its position evicted and is told so with a truncated event.
//
// Output that a following reader has not sent yet is kept beyond the
// budget, up to slackFactor times it: a follower held up for a moment (a
// busy machine, a GC, a gateway reconnect) then loses nothing, while one
// that stops reading still cannot make the buffer grow without bound.
type logBuffer struct {
	mu      sync.Mutex
	chunks  []chunk // chunks[i].seq == first+i
	start   int     // chunks[:start] are evicted, kept only until compaction
	first   uint64  // seq of chunks[start]; seqs start at 1
	next    uint64  // seq of the next append
	size    int     // retained bytes incl. overhead
	limit   int
	evicted [3]int64 // evicted data bytes per stream (index stream-1)
	closed  bool     // the exit event is in
	changed chan struct{}
	budget  *logBudget // container-wide accounting; nil: none

	followers  map[int]uint64 // following readers' positions (seq sent up to)
	nextFollow int
}

// slackFactor: how far beyond its budget a buffer grows for a follower
// that is behind.
const slackFactor = 4

func newLogBuffer(limit int, budget *logBudget) *logBuffer {
	return &logBuffer{first: 1, next: 1, limit: limit, changed: make(chan struct{}), budget: budget}
}

// append adds a chunk, evicting the oldest ones beyond the budget (the new
// chunk itself is always kept), and wakes every waiting reader.
func (b *logBuffer) append(s stream, data []byte, exit *api.ExitStatus) {
	now := time.Now().UTC()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.chunks = append(b.chunks, chunk{seq: b.next, stream: s, at: now, data: data, exit: exit})
	b.next++
	b.grow(len(data) + chunkOverhead)
	b.trim()
	if exit != nil {
		b.closed = true
	}
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

func (c *chunk) cost() int { return len(c.data) + chunkOverhead }

// data is the output retained, without bookkeeping.
func (b *logBuffer) data() int { return b.size - chunkOverhead*(len(b.chunks)-b.start) }

// overheadFactor bounds a buffer's memory, bookkeeping included, when
// tiny writes make bookkeeping rival the output it keeps.
const overheadFactor = 2

// grow accounts n more (or, negative, fewer) retained bytes.
func (b *logBuffer) grow(n int) {
	b.size += n
	if b.budget != nil {
		b.budget.add(n)
	}
}

// evictOldest drops the oldest retained chunk; the caller holds mu.
func (b *logBuffer) evictOldest() {
	c := &b.chunks[b.start]
	b.grow(-c.cost())
	b.evicted[c.stream-1] += int64(len(c.data))
	*c = chunk{} // drop the data reference now
	b.start++
	b.first++
}

// trim evicts whole chunks from the front while what stays still holds
// at least `limit` bytes of output: a process keeps its newest `limit`
// bytes (the README's promise), however small the reads that brought them
// (a busy host reads a pipe in smaller pieces, and counting bookkeeping
// against the floor kept less than 8 MiB). Bookkeeping counts against
// memory instead: past overheadFactor times the limit (a stream of tiny
// writes) the oldest go even below the floor. Memory stays under that plus
// one chunk (a pipe read), or up to slackFactor times the limit while a
// follower needs the chunks. The caller holds mu.
func (b *logBuffer) trim() {
	for b.start < len(b.chunks)-1 {
		c := &b.chunks[b.start]
		keepsFloor := b.data()-len(c.data) >= b.limit
		overMemory := b.size-c.cost() >= overheadFactor*b.limit
		if !keepsFloor && !overMemory {
			break
		}
		if b.size <= slackFactor*b.limit && c.seq > b.slowestFollower() {
			break // a follower has yet to send it
		}
		b.evictOldest()
	}
	b.compact()
}

// compact reclaims the slots of evicted chunks once they are the majority.
func (b *logBuffer) compact() {
	if b.start > 64 && b.start > len(b.chunks)/2 {
		b.chunks = append(b.chunks[:0:0], b.chunks[b.start:]...)
		b.start = 0
	}
}

// shed evicts the oldest chunks until at most target bytes are retained,
// below the per-process budget if need be (the container-wide budget asks).
// The newest chunk stays: it is the exit event, or the latest output.
func (b *logBuffer) shed(target int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.size > target && b.start < len(b.chunks)-1 {
		b.evictOldest()
	}
	b.compact()
}

// follow registers a following reader positioned after seq; its position
// moves with each read and it must unfollow when done.
func (b *logBuffer) follow(after uint64) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.followers == nil {
		b.followers = map[int]uint64{}
	}
	b.nextFollow++
	b.followers[b.nextFollow] = after
	return b.nextFollow
}

func (b *logBuffer) unfollow(id int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.followers, id)
	b.trim() // what was kept for it goes
}

// slowestFollower is the lowest position of a follower (MaxUint64 with
// none); the caller holds mu.
func (b *logBuffer) slowestFollower() uint64 {
	low := uint64(math.MaxUint64)
	for _, after := range b.followers {
		low = min(low, after)
	}
	return low
}

// detach stops counting this buffer in the container-wide budget: its
// process is no longer listed (in-flight readers may finish reading it).
func (b *logBuffer) detach() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.budget != nil {
		b.budget.add(-b.size)
		b.budget = nil
	}
}

// retained is the bytes (with bookkeeping) this buffer holds.
func (b *logBuffer) retained() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// maxBatch bounds how many chunks one read copies out while holding the lock.
const maxBatch = 256

// snapshot describes what a reader positioned after seq `after` can see now.
type snapshot struct {
	chunks    []chunk       // up to maxBatch retained chunks with seq > after (a copy)
	truncated bool          // chunks between after and the first retained one were evicted
	resumeAt  uint64        // seq a truncated event stands for: just before the oldest retained chunk
	lost      int64         // output bytes the truncation skipped; -1 when the reader's byte offset is unknown
	afterOff  int64         // output bytes before the reader's position after this read (before chunks)
	last      uint64        // seq of the newest chunk (0 when empty)
	closed    bool          // the exit chunk is the last one
	changed   chan struct{} // closed on the next append
}

// read returns what a reader positioned after seq `after` (having sent
// everything up to it) can see now; follower is its follow id, 0 if none.
func (b *logBuffer) read(after uint64, follower int) snapshot {
	return b.readAt(after, -1, follower)
}

// readAt is read for a reader that knows how many output bytes come before
// its position (afterOff; -1 unknown, as for a client's cursor), so that a
// truncation can say how many it skips. Eviction is from the front, so
// the bytes before the oldest retained chunk are the ones evicted.
func (b *logBuffer) readAt(after uint64, afterOff int64, follower int) snapshot {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.followers[follower]; ok {
		b.followers[follower] = after
	}
	if after == 0 {
		afterOff = 0
	}
	s := snapshot{last: b.next - 1, closed: b.closed, changed: b.changed}
	evicted := b.evicted[0] + b.evicted[1] + b.evicted[2]
	if after+1 < b.first {
		s.truncated = true
		s.resumeAt = b.first - 1
		s.lost = -1
		if afterOff >= 0 {
			s.lost = evicted - afterOff
		}
		after, afterOff = b.first-1, evicted
	} else if afterOff < 0 {
		afterOff = evicted
		for _, c := range b.chunks[b.start : b.start+int(after+1-b.first)] {
			afterOff += int64(len(c.data))
		}
	}
	s.afterOff = afterOff
	if after < b.next-1 {
		// Copy the headers: eviction clears slots in place. The data slices
		// themselves are never written after append.
		i := b.start + int(after+1-b.first)
		j := min(len(b.chunks), i+maxBatch)
		s.chunks = append([]chunk(nil), b.chunks[i:j]...)
	}
	return s
}

// lastSeq is the seq of the newest event, 0 when there is none.
func (b *logBuffer) lastSeq() uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.next - 1
}

// parts returns the retained bytes of one stream as slices of the chunks'
// data (never written after append, so safe to read without the lock),
// keeping at most the last max bytes (max <= 0: no limit). truncated
// reports whether anything of that stream is missing from the result.
func (b *logBuffer) parts(s stream, max int) (parts [][]byte, truncated bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	total := 0
	for _, c := range b.chunks[b.start:] {
		if c.stream == s {
			total += len(c.data)
			parts = append(parts, c.data)
		}
	}
	if skip := total - max; max > 0 && skip > 0 {
		truncated = true
		for skip >= len(parts[0]) {
			skip -= len(parts[0])
			parts = parts[1:]
		}
		parts[0] = parts[0][skip:]
	}
	return parts, truncated || b.evicted[s-1] > 0
}

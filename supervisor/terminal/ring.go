package terminal

import "sync"

// ring keeps the newest bytes of a terminal's output. Every byte has an
// absolute offset in the output (from 0); a reader asks for the bytes from
// an offset and learns when some were evicted. Memory grows with the
// output up to the capacity and then stays there.
type ring struct {
	mu      sync.Mutex
	cap     int
	buf     []byte // byte at offset o is buf[o % cap]
	end     int64  // offset after the last byte
	closed  bool   // no more output will come
	changed chan struct{}
}

func newRing(capacity int) *ring {
	return &ring{cap: capacity, changed: make(chan struct{})}
}

func (b *ring) notifyLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *ring) write(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(p) > b.cap {
		b.end += int64(len(p) - b.cap)
		p = p[len(p)-b.cap:]
		if len(b.buf) < b.cap {
			b.buf = append(b.buf, make([]byte, b.cap-len(b.buf))...)
		}
	}
	for len(p) > 0 {
		if len(b.buf) < b.cap {
			// Still growing: offsets below cap are written in order.
			n := min(len(p), b.cap-len(b.buf))
			b.buf = append(b.buf, p[:n]...)
			p = p[n:]
			b.end += int64(n)
			continue
		}
		n := copy(b.buf[int(b.end%int64(b.cap)):], p)
		p = p[n:]
		b.end += int64(n)
	}
	b.notifyLocked()
}

func (b *ring) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.notifyLocked()
	}
}

// bounds returns the oldest kept and the next offset.
func (b *ring) bounds() (start, end int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.startLocked(), b.end
}

func (b *ring) startLocked() int64 {
	if b.end <= int64(len(b.buf)) {
		return 0
	}
	return b.end - int64(len(b.buf))
}

// read copies up to max bytes from offset from into dst (reused when big
// enough). It returns the offset the data really starts at (later than
// from when bytes were evicted), the data, whether the output is closed
// and fully read, and a channel that closes on the next change.
func (b *ring) read(from int64, max int, dst []byte) (at int64, data []byte, eof bool, changed <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if start := b.startLocked(); from < start {
		from = start
	}
	if from > b.end {
		from = b.end
	}
	n := int(min(int64(max), b.end-from))
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	data = dst[:n]
	if n > 0 {
		i := int(from % int64(b.cap))
		c := copy(data, b.buf[i:min(len(b.buf), i+n)])
		copy(data[c:], b.buf[:n-c])
	}
	return from, data, b.closed && from+int64(n) == b.end, b.changed
}

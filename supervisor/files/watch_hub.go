package files

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/api"
)

// Bounds of the file watch. A hub is one inotify instance per watched
// root (path and recursive flag), shared by everyone following it; it
// keeps its newest events in a ring so that a follower that reconnects
// with its cursor misses nothing.
const (
	watchRing     = 4096                  // events a hub remembers
	watchMaxDirs  = 8192                  // directories one recursive hub watches
	watchMaxHubs  = 16                    // roots watched at once per sandbox
	watchMaxSubs  = 64                    // open watch streams per sandbox
	watchLinger   = 60 * time.Second      // a hub outlives its last follower this long
	watchBatch    = 25 * time.Millisecond // events gathered before publishing (coalesces modify bursts)
	watchMask     = unix.IN_CREATE | unix.IN_MODIFY | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_EXCL_UNLINK
	watchDirFlags = unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW
)

// watchSeq numbers events across every hub. It starts at the boot's clock
// in microseconds so that a cursor of an earlier container is below every
// id of this one and is reported as a restart, not silently misread.
var watchSeq struct {
	sync.Mutex
	n uint64
}

func init() { watchSeq.n = uint64(time.Now().UnixMicro()) }

func nextID() uint64 {
	watchSeq.Lock()
	defer watchSeq.Unlock()
	watchSeq.n++
	return watchSeq.n
}

func currentID() uint64 {
	watchSeq.Lock()
	defer watchSeq.Unlock()
	return watchSeq.n
}

// hub watches one root.
type hub struct {
	key       string
	root      string
	recursive bool
	f         *os.File // the inotify instance, read through the poller (Close ends a Read)
	fd        int      // its descriptor, for adding watches (f.Fd would make it blocking)

	// Owned by the reader goroutine.
	wds      map[int32]string
	pending  []api.FileEvent // this batch, not yet published
	synth    map[string]bool // creates reported by a scan, to drop the kernel's duplicate
	moveFrom *rawMove
	full     bool // watchMaxDirs was reached (reported once)

	mu       sync.Mutex
	ring     []api.FileEvent
	startID  uint64 // ids after this are covered
	lostUpTo uint64 // the newest id evicted from the ring
	wake     chan struct{}
	ended    bool
	subs     int
	idleAt   time.Time
}

type rawMove struct {
	cookie uint32
	path   string
	isDir  bool
}

func newHub(root string, recursive bool) (*hub, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, err
	}
	h := &hub{root: root, recursive: recursive, f: os.NewFile(uintptr(fd), "inotify"), fd: fd,
		wds: map[int32]string{}, synth: map[string]bool{}, wake: make(chan struct{}), startID: currentID()}
	// The root itself follows a symlink (as reading it would); nothing
	// below it does.
	wd, err := unix.InotifyAddWatch(fd, root, watchMask)
	if err != nil {
		h.f.Close()
		return nil, err
	}
	h.wds[int32(wd)] = root
	if recursive {
		h.addTree(root, false)
	}
	go h.run()
	return h, nil
}

// addTree watches the directories below dir; with emit, it reports what
// it finds as created (they appeared before their directory was watched).
func (h *hub) addTree(dir string, emit bool) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir && !emit {
			return nil
		}
		if p != dir && emit {
			h.emit(api.FileEvent{Type: api.FileCreated, Path: p, IsDir: d.IsDir()})
			h.synth[p] = true
		}
		if !d.IsDir() {
			return nil
		}
		if p == dir && !emit {
			return nil
		}
		if len(h.wds) >= watchMaxDirs {
			h.overflowWatches()
			return fs.SkipDir
		}
		wd, err := unix.InotifyAddWatch(h.fd, p, watchMask|watchDirFlags)
		if err != nil {
			if errors.Is(err, unix.ENOSPC) {
				h.overflowWatches()
			}
			return fs.SkipDir
		}
		h.wds[int32(wd)] = p
		return nil
	})
}

func (h *hub) overflowWatches() {
	if !h.full {
		h.full = true
		h.emit(api.FileEvent{Type: api.FileOverflow, Reason: "watches"})
	}
}

// emit queues an event of this batch; a modify of a path whose last
// queued event is already a modify is dropped (bursts of writes).
func (h *hub) emit(ev api.FileEvent) {
	if ev.Type == api.FileModified {
		for i := len(h.pending) - 1; i >= 0; i-- {
			if h.pending[i].Path == ev.Path || h.pending[i].From == ev.Path {
				if h.pending[i].Type == api.FileModified {
					return
				}
				break
			}
		}
	}
	if len(h.synth) > watchRing {
		clear(h.synth)
	}
	h.pending = append(h.pending, ev)
}

// run reads batches: the first event of a batch, then whatever comes in
// the next watchBatch (so a burst of writes is one modify), then publishes.
func (h *hub) run() {
	buf := make([]byte, 256<<10)
	for {
		n, err := h.f.Read(buf)
		if err != nil {
			h.end()
			return
		}
		time.Sleep(watchBatch)
		for n < len(buf)-(unix.SizeofInotifyEvent+unix.NAME_MAX+1) {
			// What is queued now, without waiting for more (a deadline
			// already past would not even try the read).
			_ = h.f.SetReadDeadline(time.Now().Add(time.Millisecond))
			m, err := h.f.Read(buf[n:])
			n += m
			if err != nil || m == 0 {
				break
			}
		}
		_ = h.f.SetReadDeadline(time.Time{})
		rootGone := h.parse(buf[:n])
		h.flushMove()
		h.publish()
		if rootGone {
			h.end()
			return
		}
	}
}

// parse handles one read of inotify events; it reports whether the root
// itself went away.
func (h *hub) parse(b []byte) (rootGone bool) {
	const hdr = unix.SizeofInotifyEvent
	for len(b) >= hdr {
		raw := (*unix.InotifyEvent)(unsafe.Pointer(&b[0]))
		name := b[hdr : hdr+int(raw.Len)]
		b = b[hdr+int(raw.Len):]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		mask := raw.Mask
		if mask&unix.IN_Q_OVERFLOW != 0 {
			h.flushMove()
			h.emit(api.FileEvent{Type: api.FileOverflow, Reason: "queue"})
			continue
		}
		dir, ok := h.wds[raw.Wd]
		if !ok {
			continue
		}
		p := dir
		if len(name) > 0 {
			p = filepath.Join(dir, string(name))
		}
		isDir := mask&unix.IN_ISDIR != 0
		if h.moveFrom != nil && !(mask&unix.IN_MOVED_TO != 0 && raw.Cookie == h.moveFrom.cookie) {
			h.flushMove()
		}
		switch {
		case mask&unix.IN_IGNORED != 0:
			delete(h.wds, raw.Wd)
			if dir == h.root {
				return true
			}
		case mask&(unix.IN_DELETE_SELF|unix.IN_MOVE_SELF) != 0:
			if dir == h.root {
				h.emit(api.FileEvent{Type: api.FileDeleted, Path: h.root, IsDir: h.recursive || isDirPath(h.root)})
				return true
			}
		case mask&unix.IN_CREATE != 0:
			if h.synth[p] {
				delete(h.synth, p)
				continue
			}
			h.emit(api.FileEvent{Type: api.FileCreated, Path: p, IsDir: isDir})
			if isDir && h.recursive {
				h.addTree(p, true)
			}
		case mask&unix.IN_MODIFY != 0:
			if !isDir {
				h.emit(api.FileEvent{Type: api.FileModified, Path: p})
			}
		case mask&unix.IN_DELETE != 0:
			delete(h.synth, p)
			h.emit(api.FileEvent{Type: api.FileDeleted, Path: p, IsDir: isDir})
		case mask&unix.IN_MOVED_FROM != 0:
			delete(h.synth, p)
			h.moveFrom = &rawMove{cookie: raw.Cookie, path: p, isDir: isDir}
		case mask&unix.IN_MOVED_TO != 0:
			if m := h.moveFrom; m != nil {
				h.moveFrom = nil
				h.emit(api.FileEvent{Type: api.FileRenamed, From: m.path, Path: p, IsDir: isDir})
				if isDir && h.recursive {
					h.renameTree(m.path, p)
				}
				continue
			}
			h.emit(api.FileEvent{Type: api.FileCreated, Path: p, IsDir: isDir})
			if isDir && h.recursive {
				h.addTree(p, true)
			}
		}
	}
	return false
}

// flushMove reports a move whose other half never came: the entry left
// the watched tree, which is a delete (and its watches must go, or they
// would report under the old name).
func (h *hub) flushMove() {
	m := h.moveFrom
	if m == nil {
		return
	}
	h.moveFrom = nil
	h.emit(api.FileEvent{Type: api.FileDeleted, Path: m.path, IsDir: m.isDir})
	if m.isDir && h.recursive {
		for wd, p := range h.wds {
			if under(p, m.path) {
				_, _ = unix.InotifyRmWatch(h.fd, uint32(wd))
				delete(h.wds, wd)
			}
		}
	}
}

// renameTree renames the watched directories below a renamed one.
func (h *hub) renameTree(from, to string) {
	for wd, p := range h.wds {
		if under(p, from) {
			h.wds[wd] = to + strings.TrimPrefix(p, from)
		}
	}
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

func isDirPath(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// publish numbers the batch, appends it to the ring and wakes followers.
func (h *hub) publish() {
	if len(h.pending) == 0 {
		return
	}
	h.mu.Lock()
	for _, ev := range h.pending {
		ev.ID = nextID()
		if len(h.ring) == watchRing {
			h.lostUpTo = h.ring[0].ID
			h.ring = append(h.ring[:0], h.ring[1:]...)
		}
		h.ring = append(h.ring, ev)
	}
	close(h.wake)
	h.wake = make(chan struct{})
	h.mu.Unlock()
	h.pending = h.pending[:0]
}

func (h *hub) end() {
	h.mu.Lock()
	if !h.ended {
		h.ended = true
		close(h.wake)
		h.wake = make(chan struct{})
	}
	h.mu.Unlock()
	h.f.Close()
}

// since answers the events after cursor, whether the hub ended, and the
// channel that is closed when there is more. A cursor the ring no longer
// covers gets an overflow event first, with the id to resume from.
func (h *hub) since(cursor uint64) (evs []api.FileEvent, next uint64, ended bool, wake <-chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case cursor < h.startID:
		evs = append(evs, api.FileEvent{ID: max(h.startID, h.lostUpTo), Type: api.FileOverflow, Reason: "restarted"})
		cursor = max(h.startID, h.lostUpTo)
	case cursor < h.lostUpTo:
		evs = append(evs, api.FileEvent{ID: h.lostUpTo, Type: api.FileOverflow, Reason: "cursor"})
		cursor = h.lostUpTo
	}
	for _, ev := range h.ring {
		if ev.ID > cursor {
			evs = append(evs, ev)
			cursor = ev.ID
		}
	}
	return evs, cursor, h.ended, h.wake
}

// latest is the cursor of a follower that starts now.
func (h *hub) latest() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.ring); n > 0 {
		return h.ring[n-1].ID
	}
	return max(h.startID, h.lostUpTo)
}

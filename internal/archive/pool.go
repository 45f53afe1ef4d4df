package archive

import (
	"archive/tar"
	"os"
	"sync"
)

// poolWorkers: file creation is syscall-bound (open, write, fchown,
// fchmod, utimensat, close), so a few more writers than cores keep the
// disk and the decompressor busy at once.
const poolWorkers = 2

type fileJob struct {
	path string
	hdr  *tar.Header
	data []byte
}

// writerPool writes small files in parallel while the extractor keeps
// decoding. The first error sticks and stops further work.
type writerPool struct {
	jobs    chan fileJob
	pending sync.WaitGroup // submitted, not yet written
	workers sync.WaitGroup
	bufs    sync.Pool

	mu     sync.Mutex
	err    error
	closed bool
}

func newWriterPool() *writerPool {
	p := &writerPool{jobs: make(chan fileJob, 4*poolWorkers)}
	for range poolWorkers {
		p.workers.Add(1)
		go p.work()
	}
	return p
}

func (p *writerPool) work() {
	defer p.workers.Done()
	for job := range p.jobs {
		if p.firstErr() == nil {
			err := writeFile(job.path, job.hdr, func(f *os.File) error {
				_, err := f.Write(job.data)
				return err
			})
			p.setErr(err)
		}
		p.bufs.Put(job.data[:0])
		p.pending.Done()
	}
}

// buffer returns a slice of length n, reusing a returned one if it fits.
func (p *writerPool) buffer(n int) []byte {
	if b, ok := p.bufs.Get().([]byte); ok && cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n, max(n, 4<<10))
}

func (p *writerPool) submit(job fileJob) error {
	if err := p.firstErr(); err != nil {
		return err
	}
	p.pending.Add(1)
	p.jobs <- job
	return nil
}

// wait blocks until every submitted file is written.
func (p *writerPool) wait() error {
	p.pending.Wait()
	return p.firstErr()
}

// close waits for outstanding work and stops the workers. Idempotent.
func (p *writerPool) close() error {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		close(p.jobs)
	}
	p.mu.Unlock()
	p.workers.Wait()
	return p.firstErr()
}

func (p *writerPool) setErr(err error) {
	if err == nil {
		return
	}
	p.mu.Lock()
	if p.err == nil {
		p.err = err
	}
	p.mu.Unlock()
}

func (p *writerPool) firstErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

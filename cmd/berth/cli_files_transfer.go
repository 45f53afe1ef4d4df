package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/berthdev/berth/internal/termsafe"
)

// transfer shows bytes moved and the rate on a terminal's stderr while a
// copy runs (nothing off a terminal).
type transfer struct {
	label string
	total int64 // 0: unknown
	n     atomic.Int64
	w     io.Writer
	stop  chan struct{}
	done  sync.WaitGroup
}

// showTransfers reports whether copies show progress (stderr is a terminal).
func showTransfers() bool { return isTerminal(os.Stderr) && os.Getenv("TERM") != "dumb" }

func startTransfer(label string, total int64) *transfer {
	t := &transfer{label: termsafe.String(label), total: total, stop: make(chan struct{})}
	if !showTransfers() {
		return t
	}
	t.w = os.Stderr
	t.done.Add(1)
	go func() {
		defer t.done.Done()
		start := time.Now()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		shown := false
		for {
			select {
			case <-t.stop:
				if shown {
					fmt.Fprint(t.w, "\r\033[K")
				}
				return
			case <-tick.C:
			}
			el := time.Since(start)
			if el < 500*time.Millisecond {
				continue // nothing for quick copies
			}
			n := t.n.Load()
			line := fmt.Sprintf("%s  %s", t.label, humanBytes(n))
			if t.total > 0 {
				line += fmt.Sprintf(" / %s (%d%%)", humanBytes(t.total), n*100/t.total)
			}
			line += fmt.Sprintf("  %s/s", humanBytes(int64(float64(n)/el.Seconds())))
			fmt.Fprint(t.w, "\r\033[K"+line)
			shown = true
		}
	}()
	return t
}

func (t *transfer) reader(r io.Reader) io.Reader { return countingReader{r, &t.n} }

func (t *transfer) end() {
	select {
	case <-t.stop:
		return // ended already
	default:
	}
	close(t.stop)
	t.done.Wait()
}

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

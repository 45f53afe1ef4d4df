package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/berthdev/berth/internal/termsafe"
)

// isTerminal reports whether f is an interactive terminal.
func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// progress shows a spinner with the elapsed time on a terminal's stderr
// while a synchronous call (start, sleep, backup) runs. Off a terminal it
// prints nothing.
type progress struct {
	w      io.Writer
	stop   chan struct{}
	done   sync.WaitGroup
	detail atomic.Pointer[string] // shown after the label (an image pull's bytes)
}

// setDetail shows s after the label from the next frame on.
func (p *progress) setDetail(s string) { p.detail.Store(&s) }

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// startProgress begins showing label; call end when the call returns.
func startProgress(label string) *progress {
	p := &progress{stop: make(chan struct{})}
	if !isTerminal(os.Stderr) || os.Getenv("TERM") == "dumb" {
		return p
	}
	label = termsafe.String(label)
	p.w = os.Stderr
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		start := time.Now()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			// Show nothing for quick calls.
			if el := time.Since(start); el > 300*time.Millisecond {
				detail := ""
				if d := p.detail.Load(); d != nil && *d != "" {
					detail = " (" + *d + ")"
				}
				fmt.Fprintf(p.w, "\r\033[K%s %s%s %.1fs", spinnerFrames[i%len(spinnerFrames)], label, detail, el.Seconds())
			}
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\033[K")
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *progress) end() {
	close(p.stop)
	p.done.Wait()
}

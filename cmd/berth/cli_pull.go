package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// showPulls shows, on a terminal's stderr, the image pulls a boot of the
// sandbox records (image-pulling events) while a call that may boot it
// runs; the returned function ends it. Off a terminal it does nothing.
// With show, each pull's line goes there (a spinner's detail) instead.
func showPulls(ctx context.Context, c *client.Client, name string, show func(string)) func() {
	if !isTerminal(os.Stderr) || os.Getenv("TERM") == "dumb" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	since := time.Now().Add(-time.Second)
	go func() {
		defer close(done)
		shown := false
		for ev, err := range c.Events(ctx, name, 0, true) {
			if err != nil {
				break
			}
			if ev.Type != api.EventImagePulling || ev.CreatedAt.Before(since) {
				continue
			}
			var p struct {
				Image                 string
				BytesDone, BytesTotal int64
			}
			if json.Unmarshal(ev.Payload, &p) != nil {
				continue
			}
			line := fmt.Sprintf("pulling %s: %s", termsafe.String(p.Image), pullBytes(p.BytesDone, p.BytesTotal))
			if show != nil {
				show(line)
				continue
			}
			fmt.Fprint(os.Stderr, "\r\033[K"+line)
			shown = true
		}
		if shown {
			fmt.Fprint(os.Stderr, "\r\033[K")
		}
	}()
	return func() { cancel(); <-done }
}

// pullBytes is "12.0 of 96.3 MiB (12%)", or the bytes so far while the
// total is unknown.
func pullBytes(done, total int64) string {
	const mib = 1 << 20
	if total <= 0 {
		return fmt.Sprintf("%.1f MiB", float64(done)/mib)
	}
	return fmt.Sprintf("%.1f of %.1f MiB (%d%%)", float64(done)/mib, float64(total)/mib, done*100/total)
}

package soak

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/berthdev/berth/client"
)

// load is one soak's running workloads.
type load struct {
	c    *client.Client
	url  string // the gateway, for previews
	rec  *recorder
	wg   sync.WaitGroup
	boot float64 // the host's uptime (s) when the run started, for line delays
}

func (l *load) uptimeNow() float64 { return l.boot + time.Since(l.rec.start).Seconds() }

func hostUptime() (float64, error) {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("empty /proc/uptime")
	}
	return strconv.ParseFloat(f[0], 64)
}

func (l *load) go_(f func()) {
	l.wg.Add(1)
	go func() { defer l.wg.Done(); f() }()
}

// execs runs `echo N` at rate per second spread over boxes, each checked;
// at most inflight at once (a tick with none free is counted, not sent).
func (l *load) execs(ctx context.Context, boxes []string, rate, inflight int) {
	sem := make(chan struct{}, inflight)
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		select {
		case sem <- struct{}{}:
		default:
			l.rec.mu.Lock()
			l.rec.skipped++
			l.rec.mu.Unlock()
			continue
		}
		n := boxes[i%len(boxes)]
		l.go_(func() {
			defer func() { <-sem }()
			began := time.Now()
			rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := l.c.Sandbox(n).Run(rctx, []string{"echo", strconv.Itoa(i)}, client.RunOptions{})
			switch {
			case err != nil:
				l.rec.fail(opExec, fmt.Errorf("%s: %w", n, err))
			case string(res.Stdout) != strconv.Itoa(i)+"\n" || res.ExitCode != 0:
				l.rec.fail(opExec, fmt.Errorf("%s: echo %d answered %q exit %d", n, i, res.Stdout, res.ExitCode))
			default:
				l.rec.ok(opExec, began)
			}
		})
	}
}

// producerScript prints a numbered line with the host's uptime (the
// kernel's, shared with the sandbox) every 200 ms: a follower learns each
// line's delay from it.
const producerScript = `i=0; while :; do read up rest < /proc/uptime; echo "line-$i $up"; i=$((i+1)); sleep 0.2; done`

// follow follows p's logs until ctx ends, checking the lines come in
// order, each once; every resumeEvery it breaks off and resumes from its
// cursor, timing the resume to its first event.
func (l *load) follow(ctx context.Context, p *client.Process, resumeEvery time.Duration) {
	cursor, next := "", -1
	var partial []byte
	for ctx.Err() == nil {
		began := time.Now()
		first := true
		until := time.Now().Add(resumeEvery/2 + rand.N(resumeEvery))
		// The first connection skips what was printed before it (whose
		// delay would be the follower's start, not the stream's).
		for ev, err := range p.Logs(ctx, cursor, cursor != "", true) {
			if err != nil {
				if ctx.Err() == nil {
					l.rec.fail(opLogLine, err)
					time.Sleep(time.Second) // as a client would, before it tries again
				}
				break
			}
			if first && cursor != "" {
				l.rec.ok(opLogResume, began)
			}
			first = false
			cursor = ev.Cursor
			switch ev.Type {
			case "truncated":
				l.rec.fail(opLogLine, errors.New("truncated: output evicted before this follower read it"))
				next = -1
			case "exit":
				l.rec.fail(opLogLine, fmt.Errorf("the producer exited: %+v", ev.Exit))
				return
			case "stdout":
				partial = append(partial, ev.Data...)
				for {
					i := bytes.IndexByte(partial, '\n')
					if i < 0 {
						break
					}
					line := string(partial[:i])
					partial = partial[i+1:]
					var k int
					var up float64
					if _, err := fmt.Sscanf(line, "line-%d %g", &k, &up); err != nil {
						l.rec.fail(opLogLine, fmt.Errorf("line %q: %v", line, err))
						continue
					}
					if next >= 0 && k != next {
						l.rec.fail(opLogLine, fmt.Errorf("line-%d where line-%d was due", k, next))
					}
					next = k + 1
					{
						delay := time.Duration((l.uptimeNow() - up) * float64(time.Second))
						l.rec.okAt(opLogLine, time.Now(), max(delay, 0))
					}
				}
			}
			if time.Now().After(until) {
				break
			}
		}
	}
}

// terminal types `echo $((A+B))` keystroke by keystroke every second or
// so and times Enter to the sum's line (which the echo of the typed
// command does not contain).
func (l *load) terminal(ctx context.Context, box string) {
	sb := l.c.Sandbox(box)
	t, err := sb.CreateTerminal(ctx, client.TerminalOptions{Argv: []string{"sh"}, Cols: 120, Rows: 40})
	if err != nil {
		l.rec.fail(opTerminal, fmt.Errorf("%s: create: %w", box, err))
		return
	}
	conn, err := t.Connect(ctx, "", 0, 0)
	if err != nil {
		l.rec.fail(opTerminal, fmt.Errorf("%s: connect: %w", box, err))
		return
	}
	defer conn.Close()
	var mu sync.Mutex
	var out []byte
	var readErr atomic.Value
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := conn.Read(buf)
			mu.Lock()
			out = append(out, buf[:n]...)
			if len(out) > 1<<16 {
				out = append([]byte(nil), out[len(out)-4096:]...)
			}
			mu.Unlock()
			if err != nil {
				readErr.Store(err)
				return
			}
		}
	}()
	for k := 0; ctx.Err() == nil; k++ {
		a, b := 1000+k, rand.IntN(1000)
		want := fmt.Sprintf("\n%d\r", a+b)
		for _, ch := range fmt.Sprintf("echo $((%d+%d))", a, b) {
			if _, err := conn.Write([]byte(string(ch))); err != nil {
				l.rec.fail(opTerminal, fmt.Errorf("%s: type: %w", box, err))
				return
			}
			time.Sleep(15 * time.Millisecond)
		}
		mu.Lock()
		out = out[:0]
		mu.Unlock()
		began := time.Now()
		if _, err := conn.Write([]byte("\r")); err != nil {
			l.rec.fail(opTerminal, fmt.Errorf("%s: enter: %w", box, err))
			return
		}
		for {
			mu.Lock()
			got := bytes.Contains(out, []byte(want))
			mu.Unlock()
			if got {
				l.rec.ok(opTerminal, began)
				break
			}
			if e := readErr.Load(); e != nil {
				if ctx.Err() == nil {
					l.rec.fail(opTerminal, fmt.Errorf("%s: read: %v", box, e))
				}
				return
			}
			if time.Since(began) > 30*time.Second {
				l.rec.fail(opTerminal, fmt.Errorf("%s: no %q within 30 s", box, strings.TrimSpace(want)))
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500*time.Millisecond + rand.N(time.Second)):
		}
	}
}

// transfers uploads a file of random bytes and downloads it again,
// comparing checksums, over and over.
func (l *load) transfers(ctx context.Context, boxes []string, size int, worker int) {
	data := make([]byte, size)
	for k := 0; ctx.Err() == nil; k++ {
		box := boxes[(k+worker)%len(boxes)]
		for i := range data {
			data[i] = byte(rand.Uint32())
		}
		path := fmt.Sprintf("/workspace/soak-%d", worker)
		began := time.Now()
		if _, err := l.c.Sandbox(box).WriteFile(ctx, path, bytes.NewReader(data), client.WriteOptions{}); err != nil {
			if ctx.Err() == nil {
				l.rec.fail(opUpload, fmt.Errorf("%s: %w", box, err))
			}
			continue
		}
		l.rec.ok(opUpload, began)
		began = time.Now()
		r, _, err := l.c.Sandbox(box).ReadFile(ctx, path)
		if err != nil {
			if ctx.Err() == nil {
				l.rec.fail(opDownload, fmt.Errorf("%s: %w", box, err))
			}
			continue
		}
		h := sha256.New()
		_, err = io.Copy(h, r)
		r.Close()
		switch {
		case err != nil:
			if ctx.Err() == nil {
				l.rec.fail(opDownload, fmt.Errorf("%s: %w", box, err))
			}
		case !bytes.Equal(h.Sum(nil), sha(data)):
			l.rec.fail(opDownload, fmt.Errorf("%s: %s came back changed", box, path))
		default:
			l.rec.ok(opDownload, began)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func sha(b []byte) []byte { s := sha256.Sum256(b); return s[:] }

// previews fetches a file through a sandbox's preview URL (by host name)
// and compares it with what was served.
func (l *load) previews(ctx context.Context, boxes []string, port int, want []byte) {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: time.Minute}
	for k := 0; ctx.Err() == nil; k++ {
		box := boxes[k%len(boxes)]
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.url+"/blob", nil)
		req.Host = fmt.Sprintf("%d-%s.localhost", port, box)
		began := time.Now()
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() == nil {
				l.rec.fail(opPreview, fmt.Errorf("%s: %w", box, err))
			}
			continue
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case err != nil:
			if ctx.Err() == nil {
				l.rec.fail(opPreview, fmt.Errorf("%s: %w", box, err))
			}
		case resp.StatusCode != 200 || !bytes.Equal(body, want):
			l.rec.fail(opPreview, fmt.Errorf("%s: %d, %d bytes (%.80q)", box, resp.StatusCode, len(body), body))
		default:
			l.rec.ok(opPreview, began)
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// sleepWake writes a file, sleeps the sandbox, waits, wakes it and
// checks the file, over and over.
func (l *load) sleepWake(ctx context.Context, box string, pause time.Duration) {
	sb := l.c.Sandbox(box)
	data := make([]byte, 64<<10)
	for ctx.Err() == nil {
		for i := range data {
			data[i] = byte(rand.Uint32())
		}
		if _, err := sb.WriteFile(ctx, "/workspace/kept", bytes.NewReader(data), client.WriteOptions{}); err != nil {
			if ctx.Err() == nil {
				l.rec.fail(opWake, fmt.Errorf("%s: write before sleep: %w", box, err))
			}
			continue
		}
		// The sleep and the wake each finish once begun, or the sandbox
		// would be left between them when the run ends.
		began := time.Now()
		if _, err := l.c.Sleep(context.Background(), box); err != nil {
			l.rec.fail(opSleep, fmt.Errorf("%s: %w", box, err))
			continue
		}
		l.rec.ok(opSleep, began)
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		began = time.Now()
		if _, err := l.c.Start(context.Background(), box); err != nil {
			l.rec.fail(opWake, fmt.Errorf("%s: %w", box, err))
			continue
		}
		l.rec.ok(opWake, began)
		r, _, err := sb.ReadFile(context.Background(), "/workspace/kept")
		if err != nil {
			l.rec.fail(opWake, fmt.Errorf("%s: read after wake: %w", box, err))
			continue
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(got, data) {
			l.rec.fail(opWake, fmt.Errorf("%s: the file written before the sleep differs after the wake (%d bytes, %v)", box, len(got), err))
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

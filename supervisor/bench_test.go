package supervisor_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/sse"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// Benchmarks report each figure beside its baseline measured in the same
// run (docs/design/testing.md). Run with:
//
//	go test ./supervisor -run '^$' -bench . -benchtime 1x   # log: one transfer
//	go test ./supervisor -run '^$' -bench ExecRoundTrip      # exec: many
//
// BERTH_BENCH_LOG_BYTES sets the log transfer size (default 1 GiB).

// BenchmarkExecRoundTrip: spawn `true`, wait for it, read its output over
// HTTP, vs fork+exec+wait of the same binary from this process.
func BenchmarkExecRoundTrip(b *testing.B) {
	b.Run("supervisor-http", func(b *testing.B) {
		a := newAPI(b, supervisortest.Options{})
		a.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		b.ResetTimer()
		for b.Loop() {
			p := a.run("true")
			o := a.output(p.ID, "timeout=10s")
			if o.ExitCode != 0 {
				b.Fatalf("exit %d", o.ExitCode)
			}
		}
	})
	b.Run("supervisor-http-wait", func(b *testing.B) {
		a := newAPI(b, supervisortest.Options{})
		a.hc = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
		if f := os.Getenv("BERTH_BENCH_PIDFILE"); f != "" { // for perf record -p
			_ = os.WriteFile(f, []byte(strconv.Itoa(a.inst.PID)), 0o644)
		}
		b.ResetTimer()
		for b.Loop() {
			var o output
			a.must("POST", "/v1/processes", map[string]any{"argv": []string{"true"}, "wait": true}, http.StatusOK, &o)
			if o.ExitCode != 0 {
				b.Fatalf("exit %d", o.ExitCode)
			}
		}
	})
	b.Run("local-fork-exec-wait", func(b *testing.B) {
		for b.Loop() {
			if _, err := exec.Command("true").Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func logBenchBytes(b *testing.B) int64 {
	if v := os.Getenv("BERTH_BENCH_LOG_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	return 1 << 30
}

// BenchmarkLogThroughput: N bytes written to stdout by `head -c N
// /dev/zero`, read with logs?follow=true (SSE parsed and base64 decoded, as
// a client does) vs the same command's stdout read from a local pipe.
// The supervisor never blocks a writer on a slow reader, so if the reader
// falls behind, bytes are evicted; "delivered" counts what arrived.
func BenchmarkLogThroughput(b *testing.B) {
	size := logBenchBytes(b)
	argv := []string{"head", "-c", strconv.FormatInt(size, 10), "/dev/zero"}
	b.Run("supervisor-logs-follow", func(b *testing.B) {
		a := newAPI(b, supervisortest.Options{})
		b.SetBytes(size)
		var delivered, truncations int64
		var elapsed time.Duration
		buf := make([]byte, 1<<20)
		b.ResetTimer()
		for b.Loop() {
			start := time.Now()
			p := a.run(argv...)
			resp := a.request("GET", "/v1/processes/"+p.ID+"/logs?follow=true", nil)
			rd := sse.NewReader(resp.Body)
			for {
				ev, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
				n, typ, err := decodeData(ev.Data, buf)
				if err != nil {
					b.Fatal(err)
				}
				delivered += int64(n)
				if typ == "truncated" {
					truncations++
				}
			}
			resp.Body.Close()
			elapsed += time.Since(start)
		}
		b.ReportMetric(float64(delivered)/elapsed.Seconds()/1e6, "delivered-MB/s")
		b.ReportMetric(float64(delivered)/float64(size*int64(b.N))*100, "%delivered")
		b.ReportMetric(float64(truncations)/float64(b.N), "truncations/op")
	})
	b.Run("local-pipe", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			cmd := exec.Command(argv[0], argv[1:]...)
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			n, err := io.Copy(io.Discard, out)
			if err != nil || n != size {
				b.Fatalf("read %d: %v", n, err)
			}
			cmd.Wait()
		}
	})
}

// decodeData base64-decodes an event's data into buf the way the Go client
// does (cutting the field out instead of running it through the JSON
// scanner) and returns the byte count and the event type.
func decodeData(ev, buf []byte) (int, string, error) {
	n := 0
	if i := bytes.Index(ev, []byte(`,"data":"`)); i >= 0 {
		rest := ev[i+9:]
		j := bytes.IndexByte(rest, '"')
		var err error
		if n, err = base64.StdEncoding.Decode(buf, rest[:j]); err != nil {
			return 0, "", err
		}
		ev = append(ev[:i:i], rest[j+1:]...)
	}
	var le struct {
		Type string `json:"type"`
	}
	err := json.Unmarshal(ev, &le)
	return n, le.Type, err
}

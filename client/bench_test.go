package client_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

// BenchmarkLogThroughputViaProxy reads `head -c N /dev/zero` through a
// reverse proxy (the gateway's role) with the client's Logs iterator, beside
// the same bytes read from a local pipe. N from BERTH_BENCH_LOG_BYTES
// (default 1 GiB); run with -benchtime 1x. Bytes the reader could not keep
// up with are evicted, not waited for; "%delivered" says how many arrived.
func BenchmarkLogThroughputViaProxy(b *testing.B) {
	size := int64(1 << 30)
	if v := os.Getenv("BERTH_BENCH_LOG_BYTES"); v != "" {
		size, _ = strconv.ParseInt(v, 10, 64)
	}
	argv := []string{"head", "-c", strconv.FormatInt(size, 10), "/dev/zero"}
	b.Run("client-logs-follow", func(b *testing.B) {
		_, _, sb := setup(b, supervisortest.Options{})
		ctx := context.Background()
		b.SetBytes(size)
		var delivered int64
		var elapsed time.Duration
		for b.Loop() {
			start := time.Now()
			p, err := sb.Exec(ctx, argv, client.ExecOptions{})
			if err != nil {
				b.Fatal(err)
			}
			for ev, err := range p.Logs(ctx, "", true, true) {
				if err != nil {
					b.Fatal(err)
				}
				delivered += int64(len(ev.Data))
			}
			elapsed += time.Since(start)
		}
		b.ReportMetric(float64(delivered)/elapsed.Seconds()/1e6, "delivered-MB/s")
		b.ReportMetric(float64(delivered)/float64(size*int64(b.N))*100, "%delivered")
	})
	b.Run("local-pipe", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			cmd := exec.Command(argv[0], argv[1:]...)
			out, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, out)
			cmd.Wait()
		}
	})
}

package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/archive/archivetest"
	"github.com/berthdev/berth/internal/stacktest"
)

// wakeWorkspace is the workspace the issue names: 20,000 small files
// (0-4 KiB of source-like text, ~40 MiB) and one file that brings the
// total to 256 MiB (half text, half random data).
func wakeWorkspace() archivetest.Options {
	return archivetest.Options{SmallFiles: 20000, SmallSize: 4096, BigFiles: []int64{216 << 20}, Seed: 7}
}

// BenchmarkWakeOnAnotherHost measures wake → first exec output of a
// sleeping sandbox with a 256 MiB / 20,000-file workspace, on the host
// that holds its volume against on another host, which restores it from
// the S3 backup store (versitygw), in the same run. The other host is a
// second `berth worker` with its own host id on this machine's Docker;
// the volume host is drained, so placement picks the other one, and its
// volume is removed beforehand (untimed), as on a real other host, where
// it does not exist. Each iteration wakes once on the volume host and
// once elsewhere; the two hosts swap roles. Run with -benchtime=1x or 3x.
func BenchmarkWakeOnAnotherHost(b *testing.B) {
	ctx := context.Background()
	st, _ := s3Stack(b)
	c := st.Client()
	n := fmt.Sprintf("bwake-%s-%d", st.HostID, time.Now().UnixNano()%1e6)
	if _, _, err := c.Create(ctx, client.CreateRequest{Name: n, InstanceType: "lite", KeepAlive: true}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _, _ = c.Destroy(context.Background(), n) })
	if _, err := c.Start(ctx, n); err != nil {
		b.Fatal(err)
	}
	dir := workspaceDir(b, st, n)
	archivetest.Build(b, dir, wakeWorkspace())
	const marker = "wake-marker.txt"
	if err := os.WriteFile(filepath.Join(dir, marker), []byte("restored\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	files, bytes := treeSize(b, dir)
	sleep := func() time.Duration {
		start := time.Now()
		if _, err := c.Sleep(ctx, n); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	firstSleep := sleep()

	other := "tw" + st.HostID
	w, err := st.StartHostWorker(other)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		w.Stop(syscall.SIGTERM)
		stacktest.RemoveHostObjects(context.Background(), st.Docker, other)
	})
	waitHostLive(b, c, other)

	// wake runs the first exec, which wakes the sandbox, and checks it
	// found the workspace.
	wake := func() (time.Duration, string) {
		start := time.Now()
		r, err := c.Sandbox(n).Run(ctx, []string{"cat", "/workspace/" + marker}, client.RunOptions{})
		if err != nil {
			b.Fatal(err)
		}
		took := time.Since(start)
		if string(r.Stdout) != "restored\n" {
			b.Fatalf("first exec after wake answered %q (exit %d)", r.Stdout, r.ExitCode)
		}
		info, err := c.Get(ctx, n)
		if err != nil {
			b.Fatal(err)
		}
		return took, info.Host
	}

	// restores counts the workspace-restored events so far: a wake on the
	// volume host adds none, one elsewhere adds one.
	restores := func() int {
		k := 0
		for _, e := range st.EventTypes(b, n) {
			if e == "workspace-restored" {
				k++
			}
		}
		return k
	}
	volumeHost := st.HostID
	var same, moved []time.Duration
	b.ResetTimer()
	for range b.N {
		r0 := restores()
		d, h := wake()
		if h != volumeHost || restores() != r0 {
			b.Fatalf("woke on %s (restores %d -> %d), want the volume host %s and no restore", h, r0, restores(), volumeHost)
		}
		same = append(same, d)
		sleep()

		to := other
		if volumeHost == other {
			to = st.HostID
		}
		st.Must(b, 200, "POST", "/v1/hosts/"+volumeHost+"/drain", nil)
		st.Must(b, 200, "DELETE", "/v1/hosts/"+to+"/drain", nil)
		removeVolume(b, st, n)
		d, h = wake()
		if h != to || restores() != r0+1 {
			b.Fatalf("woke on %s (restores %d -> %d), want the other host %s restoring", h, r0, restores(), to)
		}
		moved = append(moved, d)
		b.StopTimer()
		if f, _ := treeSize(b, workspaceDir(b, st, n)); f != files {
			b.Fatalf("the restored workspace holds %d files, want %d", f, files)
		}
		b.StartTimer()
		sleep()
		st.Must(b, 200, "DELETE", "/v1/hosts/"+volumeHost+"/drain", nil)
		volumeHost = to
	}
	b.StopTimer()

	fmt.Printf("\nwake → first exec output, workspace of %d files, %.0f MiB, backups on S3 (versitygw); first sleep (full backup) %s\n",
		files, float64(bytes)/(1<<20), firstSleep.Round(10*time.Millisecond))
	fmt.Printf("  same host (local volume)        %s\n", durations(same))
	fmt.Printf("  other host (restore from S3)    %s\n", durations(moved))
	fmt.Printf("  ratio (mean)                    %.1fx\n\n", ms(mean(moved))/ms(mean(same)))
	b.ReportMetric(ms(mean(same)), "same-host-ms")
	b.ReportMetric(ms(mean(moved)), "other-host-ms")
}

// waitHostLive waits until host id has announced itself.
func waitHostLive(b *testing.B, c *client.Client, id string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		hs, err := c.Hosts(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		for _, h := range hs {
			if h.ID == id && h.Live {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	b.Fatalf("host %s did not announce itself", id)
}

// treeSize counts the regular files under dir and their bytes.
func treeSize(b *testing.B, dir string) (files int, bytes int64) {
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files++
		bytes += fi.Size()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return files, bytes
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}

func durations(ds []time.Duration) string {
	var s []string
	for _, d := range ds {
		s = append(s, fmt.Sprintf("%.0f ms", ms(d)))
	}
	return fmt.Sprintf("mean %6.0f ms  (%s)", ms(mean(ds)), strings.Join(s, ", "))
}

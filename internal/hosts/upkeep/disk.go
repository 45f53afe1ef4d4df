package upkeep

import (
	"context"
	"time"

	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/internal/metrics"
)

// diskEvery is how often the data directory's free space is read for
// berth_host_disk_free_ratio (the "disk near full" alert).
const diskEvery = 30 * time.Second

// WatchDisk keeps the free fraction of the file system under dir (sandbox
// disks, volumes, restore markers) current until ctx ends.
func WatchDisk(ctx context.Context, host, dir string) {
	g := metrics.DiskFree.WithLabelValues(host, "data")
	for {
		var st unix.Statfs_t
		if err := unix.Statfs(dir, &st); err == nil && st.Blocks > 0 {
			g.Set(float64(st.Bavail) / float64(st.Blocks))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(diskEvery):
		}
	}
}

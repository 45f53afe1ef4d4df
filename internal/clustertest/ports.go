// The cluster's port block and the test-only dynamic config.

package clustertest

import (
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// testDynamicConfig is appended to deploy/temporal/config/dynamicconfig.yaml
// for the test cluster only. Temporal refuses a local namespace retention
// under an hour and spreads the deletion of each closed run over the 30
// minutes after its retention ends; with these a test can watch retention
// delete runs within a couple of minutes (tests/cluster/retention_test.go). They change
// nothing until a test lowers the namespace's retention.
const testDynamicConfig = `
# --- test cluster only (internal/clustertest/ports.go) ---
system.namespaceMinRetentionLocal:
  - value: 10s
history.retentionTimerJitterDuration:
  - value: 1s
`

// writeDynamicConfig writes the nodes' dynamic config file: production's,
// then the test-only keys (a key in both would make the YAML invalid, and
// the nodes refuse to start, so a clash cannot pass unnoticed).
func (c *Cluster) writeDynamicConfig() error {
	prod, err := os.ReadFile(filepath.Join(c.Root, "deploy/temporal/config/dynamicconfig.yaml"))
	if err != nil {
		return err
	}
	c.DynamicConfig = filepath.Join(c.Dir, "dynamicconfig.yaml")
	return os.WriteFile(c.DynamicConfig, append(prod, testDynamicConfig...), 0o644)
}

// freeOffset finds a port offset at which every Temporal port is free on
// every node address (several clusters and `task cluster` may run at once).
func freeOffset() (int, error) {
	for try := 0; try < 50; try++ {
		var b [2]byte
		_, _ = rand.Read(b[:])
		off := 1000 + int(b[0])<<4 + int(b[1]&0xf)*10 // 1000..5000, leaves 7233+off < 12500
		if portsFree(off) {
			return off, nil
		}
	}
	return 0, errors.New("no free block of Temporal ports on 127.0.0.2-4")
}

func portsFree(off int) bool {
	for _, ip := range NodeIPs {
		for _, p := range []int{6933, 6934, 6935, 6939, 7233, 7234, 7235, 7239} {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p+off)))
			if err != nil {
				return false
			}
			l.Close()
		}
	}
	return true
}

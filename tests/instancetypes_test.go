package tests

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"

	"github.com/berthdev/berth/internal/config"
)

// Instance types the test stack has beside the built-in ones
// (BERTH_INSTANCE_TYPES).
const (
	// typeSmallDisk has a disk small enough to fill in a test.
	typeSmallDisk = "test-small-disk"
	smallDiskMiB  = 64
	// typeBrokenSupervisor runs brokenImage (fault injection: its
	// supervisor refuses to start; the test that uses it builds it).
	typeBrokenSupervisor = "test-broken-supervisor"
	// typeSmallMemory has memory a few shells fill, and a whole CPU to
	// fill it fast.
	typeSmallMemory = "test-small-memory"
)

var brokenImage = "berth/test-broken:" + randSuffix()

func randSuffix() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// writeInstanceTypes writes the test types to a file and returns the
// environment entry that names it, and the file (to remove at the end).
func writeInstanceTypes() (env, file string, err error) {
	types := []config.InstanceType{
		{Name: typeSmallDisk, VCPU: 0.25, MemoryMiB: 256, Pids: 256, DiskMiB: smallDiskMiB},
		{Name: typeBrokenSupervisor, VCPU: 0.25, MemoryMiB: 256, Pids: 256, DiskMiB: smallDiskMiB, Image: brokenImage},
		{Name: typeSmallMemory, VCPU: 1, MemoryMiB: 48, Pids: 256, DiskMiB: smallDiskMiB},
	}
	b, err := json.Marshal(types)
	if err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp("", "berth-instance-types-*.json")
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return "", "", err
	}
	return "BERTH_INSTANCE_TYPES=" + f.Name(), f.Name(), nil
}

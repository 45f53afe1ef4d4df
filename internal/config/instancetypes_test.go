package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstanceTypeDisks(t *testing.T) {
	for name, want := range map[string]int64{"lite": 1 << 10, "basic": 5 << 10, "standard-1": 10 << 10,
		"standard-2": 20 << 10, "standard-3": 40 << 10, "standard-4": 80 << 10} {
		if got := BuiltinInstanceTypes()[name].DiskMiB; got != want {
			t.Errorf("%s: diskMiB %d, want %d", name, got, want)
		}
	}
	file := filepath.Join(t.TempDir(), "types.json")
	os.WriteFile(file, []byte(`[{"name":"small","vcpu":1,"memoryMiB":512,"diskMiB":64},{"name":"plain","vcpu":1,"memoryMiB":512}]`), 0o600)
	types, err := LoadInstanceTypes(file)
	if err != nil {
		t.Fatal(err)
	}
	if types["small"].DiskBytes() != 64<<20 || types["plain"].DiskMiB != DefaultDiskMiB {
		t.Errorf("small %d bytes, plain %d MiB", types["small"].DiskBytes(), types["plain"].DiskMiB)
	}
	os.WriteFile(file, []byte(`[{"name":"tiny","vcpu":1,"memoryMiB":512,"diskMiB":8}]`), 0o600)
	if _, err := LoadInstanceTypes(file); err == nil || !strings.Contains(err.Error(), "diskMiB") {
		t.Errorf("a disk below the minimum: %v", err)
	}
}

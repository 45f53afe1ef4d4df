package cgroup

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadUsageV2(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"cgroup.controllers": "cpu memory pids\n",
		"cpu.stat":           "usage_usec 2500000\nuser_usec 2000000\n",
		"memory.current":     "104857600\n",
		"memory.stat":        "anon 1\nfile 5\ninactive_file 4857600\n",
		"memory.max":         "268435456\n",
		"pids.current":       "7\n",
		"pids.max":           "max\n",
	})
	old := Root
	Root = dir
	defer func() { Root = old }()
	u := ReadUsage()
	want := Usage{CPU: 2500 * time.Millisecond, MemoryBytes: 100000000, MemoryLimit: 268435456, Pids: 7, PidsLimit: 0}
	if u != want {
		t.Fatalf("got %+v, want %+v", u, want)
	}
}

func TestReadUsageV1(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"cpuacct/cpuacct.usage":        "1500000000\n",
		"memory/memory.usage_in_bytes": "3000000\n",
		"memory/memory.stat":           "cache 1\ntotal_inactive_file 1000000\n",
		"memory/memory.limit_in_bytes": "9223372036854771712\n",
		"pids/pids.current":            "2\n",
		"pids/pids.max":                "100\n",
	})
	old := Root
	Root = dir
	defer func() { Root = old }()
	u := ReadUsage()
	want := Usage{CPU: 1500 * time.Millisecond, MemoryBytes: 2000000, MemoryLimit: 0, Pids: 2, PidsLimit: 100}
	if u != want {
		t.Fatalf("got %+v, want %+v", u, want)
	}
}

func TestReadUsageMissingFiles(t *testing.T) {
	old := Root
	Root = t.TempDir()
	defer func() { Root = old }()
	u := ReadUsage()
	if u.CPU != -1 || u.MemoryBytes != -1 || u.Pids != -1 {
		t.Fatalf("unreadable figures must read -1: %+v", u)
	}
}

// Package config holds Berth's settings: instance types and the process
// configuration read from flags and BERTH_* environment variables.
package config

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// InstanceType fixes a sandbox's resources and image for its whole life.
type InstanceType struct {
	Name      string  `json:"name"`
	VCPU      float64 `json:"vcpu"`
	MemoryMiB int64   `json:"memoryMiB"`
	Pids      int64   `json:"pids"`
	// DiskMiB bounds what the sandbox can write: /workspace and the root
	// file system share a disk of this size.
	DiskMiB int64 `json:"diskMiB"`
	// Image overrides the default image for this type.
	Image string `json:"image,omitempty"`
}

// NanoCPUs is the CPU limit in Docker's unit.
func (t InstanceType) NanoCPUs() int64 { return int64(t.VCPU * 1e9) }

// MemoryBytes is the memory limit in bytes.
func (t InstanceType) MemoryBytes() int64 { return t.MemoryMiB << 20 }

// DiskBytes is the disk size in bytes.
func (t InstanceType) DiskBytes() int64 { return t.DiskMiB << 20 }

// DefaultDiskMiB is the disk of a custom type that names none.
const DefaultDiskMiB = 10 << 10

// MinDiskMiB is the smallest disk a type may have (ext4's own needs).
const MinDiskMiB = 32

// DefaultInstanceType is used when a create names none.
const DefaultInstanceType = "basic"

// InstanceTypes maps names to types.
type InstanceTypes map[string]InstanceType

// BuiltinInstanceTypes are the types every Berth offers (lite, basic,
// standard-1 … standard-4); a BERTH_INSTANCE_TYPES file adds or replaces
// types.
func BuiltinInstanceTypes() InstanceTypes {
	types := InstanceTypes{}
	for _, t := range []InstanceType{
		{Name: "lite", VCPU: 1.0 / 16, MemoryMiB: 256, Pids: 256, DiskMiB: 1 << 10},
		{Name: "basic", VCPU: 0.25, MemoryMiB: 1024, Pids: 512, DiskMiB: 5 << 10},
		{Name: "standard-1", VCPU: 0.5, MemoryMiB: 4096, Pids: 1024, DiskMiB: 10 << 10},
		{Name: "standard-2", VCPU: 1, MemoryMiB: 6144, Pids: 2048, DiskMiB: 20 << 10},
		{Name: "standard-3", VCPU: 2, MemoryMiB: 8192, Pids: 4096, DiskMiB: 40 << 10},
		{Name: "standard-4", VCPU: 4, MemoryMiB: 12288, Pids: 4096, DiskMiB: 80 << 10},
	} {
		types[t.Name] = t
	}
	return types
}

// LoadInstanceTypes returns the built-in types plus those of a JSON file
// (a list of InstanceType) when path is set; a file entry replaces a builtin
// of the same name.
func LoadInstanceTypes(path string) (InstanceTypes, error) {
	types := BuiltinInstanceTypes()
	if path == "" {
		return types, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("instance types: %w", err)
	}
	var custom []InstanceType
	if err := json.Unmarshal(raw, &custom); err != nil {
		return nil, fmt.Errorf("instance types %s: %w", path, err)
	}
	for _, t := range custom {
		if t.Name == "" || t.VCPU <= 0 || t.MemoryMiB <= 0 {
			return nil, fmt.Errorf("instance types %s: %q needs name, vcpu > 0 and memoryMiB > 0", path, t.Name)
		}
		if t.Pids == 0 {
			t.Pids = 1024
		}
		if t.DiskMiB == 0 {
			t.DiskMiB = DefaultDiskMiB
		}
		if t.DiskMiB < MinDiskMiB {
			return nil, fmt.Errorf("instance types %s: %q needs diskMiB >= %d", path, t.Name, MinDiskMiB)
		}
		types[t.Name] = t
	}
	return types, nil
}

// Names lists the type names in order, for error messages.
func (ts InstanceTypes) Names() []string {
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

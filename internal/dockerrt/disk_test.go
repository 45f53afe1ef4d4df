package dockerrt

import "testing"

// Only a device laid out as <root>/<volume>/mnt/workspace names a disk, so
// a mislabelled volume can never point removal elsewhere.
func TestDiskOfDevice(t *testing.T) {
	cases := []struct {
		name, device string
		root         string
	}{
		{"berth-ws-a", "/data/disks/berth-ws-a/mnt/workspace", "/data/disks/berth-ws-a"},
		{"berth-ws-a", "/data/disks/berth-ws-b/mnt/workspace", ""},
		{"berth-ws-a", "/mnt/workspace", ""},
		{"berth-ws-a", "/data/disks/berth-ws-a/mnt/other", ""},
		{"berth-ws-a", "relative/berth-ws-a/mnt/workspace", ""},
	}
	for _, c := range cases {
		d, ok := diskOfDevice(c.name, c.device)
		if ok != (c.root != "") || ok && d.root != c.root {
			t.Errorf("%s %s: %q %v", c.name, c.device, d.root, ok)
		}
	}
}

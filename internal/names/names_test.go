package names

import (
	"strings"
	"testing"
)

func TestValidSandbox(t *testing.T) {
	for _, ok := range []string{"a", "0", "demo", "a-b-c", "x" + strings.Repeat("1", 62)} {
		if !ValidSandbox(ok) {
			t.Errorf("%q must be valid", ok)
		}
	}
	for _, bad := range []string{"", "-a", "A", "a_b", "a/b", "..", "x/../../etc/cron.d/p", "a\n", "a.b",
		"x" + strings.Repeat("1", 63), "é"} {
		if ValidSandbox(bad) {
			t.Errorf("%q must be invalid", bad)
		}
	}
}

func TestValidIDs(t *testing.T) {
	if !ValidBackupID("20250102T030405Z-0a1b2c3d") || ValidBackupID("20250102T030405Z-0a1b2c3d/../x") || ValidBackupID("") {
		t.Error("backup id")
	}
	if !ValidBootID("0b6c1e3a-5f1d-4b8e-9c2a-7d3e4f5a6b7c") || ValidBootID("0B6C1E3A-5F1D-4B8E-9C2A-7D3E4F5A6B7C") || ValidBootID("../x") {
		t.Error("boot id")
	}
	if !ValidContainerID(strings.Repeat("ab", 32)) || ValidContainerID("berth-x") || ValidContainerID("../../x") {
		t.Error("container id")
	}
}

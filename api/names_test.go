package api

import (
	"strings"
	"testing"
)

func TestValidSandboxName(t *testing.T) {
	for _, ok := range []string{"a", "0", "demo", "a-b-c", "x" + strings.Repeat("1", 62)} {
		if !ValidSandboxName(ok) {
			t.Errorf("%q must be valid", ok)
		}
	}
	for _, bad := range []string{"", "-a", "A", "a_b", "a/b", "..", "x/../../etc/cron.d/p", "a\n", "a.b",
		"x" + strings.Repeat("1", 63), "é"} {
		if ValidSandboxName(bad) {
			t.Errorf("%q must be invalid", bad)
		}
	}
}

func TestValidBackupID(t *testing.T) {
	if !ValidBackupID("20250102T030405Z-0a1b2c3d") || ValidBackupID("20250102T030405Z-0a1b2c3d/../x") || ValidBackupID("") {
		t.Error("backup id")
	}
}

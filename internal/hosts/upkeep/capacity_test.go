package upkeep

import "testing"

func TestParseHostMemory(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "4096MiB": 4096, "64GiB": 64 << 10, "2G": 2 << 10, "1TiB": 1 << 20} {
		if got, err := parseMiB(in); err != nil || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "lots", "1.5GiB", "99999999999999TiB"} {
		if _, err := parseMiB(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

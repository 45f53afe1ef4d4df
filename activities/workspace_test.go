package activities

import (
	"testing"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// A local volume is an earlier tenure's only when this host made it and
// the workspace lives on another host now; one made by the workspace's own
// host (this machine under an earlier host id) is the workspace.
func TestEarlierTenure(t *testing.T) {
	made := func(host string) map[string]string { return map[string]string{dockerrt.LabelHost: host} }
	cases := []struct {
		name       string
		volumeHost string
		labels     map[string]string
		want       bool
	}{
		{"it ran here last", "b", made("b"), false},
		{"made here, the workspace moved to a", "a", made("b"), true},
		{"made by a, this machine's earlier id", "a", made("a"), false},
		{"no label (made outside Berth's boots)", "a", nil, false},
		{"a new sandbox (no host yet)", "", made("b"), false},
	}
	for _, c := range cases {
		if got := earlierTenure(contract.BootInput{VolumeHost: c.volumeHost}, "b", c.labels); got != c.want {
			t.Errorf("%s: earlierTenure = %v, want %v", c.name, got, c.want)
		}
	}
}

package dockerrt

import "testing"

func TestCFSBandwidthKeepsTheShareOverAShortPeriod(t *testing.T) {
	for _, c := range []struct {
		nano, period, quota int64
	}{
		{0, 0, 0},                       // no limit
		{62_500_000, 20_000, 1_250},     // lite, 1/16 vCPU
		{250_000_000, 20_000, 5_000},    // basic, 1/4
		{2_000_000_000, 20_000, 40_000}, // standard-3, 2 vCPUs
		{25_000_000, 40_000, 1_000},     // 1/40: the period grows to keep the 1 ms minimum quota
		{500_000, 1_000_000, 1_000},     // tinier than the kernel allows: capped at 1 ms per second
	} {
		p, q := cfsBandwidth(c.nano)
		if p != c.period || q != c.quota {
			t.Errorf("cfsBandwidth(%d) = %d, %d; want %d, %d", c.nano, p, q, c.period, c.quota)
		}
	}
}

package cgroup

import "testing"

func TestCPURatio(t *testing.T) {
	for _, c := range []struct {
		quota, period string
		want          float64
		ok            bool
	}{
		{"25000", "100000", 0.25, true}, // basic
		{"100000", "100000", 1, true},   // standard-2
		{"200000", "100000", 2, true},
		{"max", "100000", 0, false}, // v2, no limit
		{"-1", "100000", 0, false},  // v1, no limit
		{"", "", 0, false},
		{"25000", "0", 0, false},
	} {
		got, ok := ratio(c.quota, c.period)
		if got != c.want || ok != c.ok {
			t.Errorf("ratio(%q, %q) = %v, %v; want %v, %v", c.quota, c.period, got, ok, c.want, c.ok)
		}
	}
}

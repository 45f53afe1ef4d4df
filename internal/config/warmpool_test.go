package config

import (
	"reflect"
	"testing"
)

func TestParseWarmPool(t *testing.T) {
	types := BuiltinInstanceTypes()
	for _, tc := range []struct {
		in   string
		want WarmPool
		bad  bool
	}{
		{in: "", want: WarmPool{}},
		{in: "0", want: WarmPool{}},
		{in: "3", want: WarmPool{"basic": 3}},
		{in: " basic=2, lite=4 ", want: WarmPool{"basic": 2, "lite": 4}},
		{in: "basic=0,lite=1", want: WarmPool{"lite": 1}},
		{in: "-1", bad: true},
		{in: "65", bad: true},
		{in: "two", bad: true},
		{in: "huge=1", bad: true},
		{in: "basic=1,basic=2", bad: true},
		{in: "basic=", bad: true},
	} {
		got, err := ParseWarmPool(tc.in, types)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseWarmPool(%q) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseWarmPool(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

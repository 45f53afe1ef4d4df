package main

import (
	"reflect"
	"testing"

	"github.com/berthdev/berth/client"
)

func TestParseEgress(t *testing.T) {
	for in, want := range map[string]*client.EgressPolicy{
		"open": {Mode: "open"},
		"none": {Mode: "none"},
		"allow=api.github.com,*.pypi.org,140.82.112.0/20,1.1.1.1,2606:4700::1111": {Mode: "allowlist",
			Domains: []string{"api.github.com", "*.pypi.org"}, CIDRs: []string{"140.82.112.0/20", "1.1.1.1", "2606:4700::1111"}},
	} {
		got, err := parseEgress(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseEgress(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "allowlist", "allow=", "allow=a.com,,b.com", "closed"} {
		if _, err := parseEgress(bad); err == nil {
			t.Errorf("parseEgress(%q) accepted", bad)
		}
	}
}

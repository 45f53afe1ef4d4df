package config

import (
	"testing"
	"time"
)

func TestPreviewFromEnv(t *testing.T) {
	for _, tc := range []struct {
		domain, wait string
		want         Preview
		bad          bool
	}{
		{want: Preview{Domain: "localhost", Wait: 30 * time.Second}},
		{domain: "Preview.Example.com.", wait: "5s", want: Preview{Domain: "preview.example.com", Wait: 5 * time.Second}},
		{wait: "250ms", want: Preview{Domain: "localhost", Wait: 250 * time.Millisecond}},
		{wait: "banana", bad: true},
		{wait: "-1s", bad: true},
		{wait: "11m", bad: true},
		{domain: "bad_domain.com", bad: true},
		{domain: "a..b", bad: true},
	} {
		t.Setenv("BERTH_PREVIEW_DOMAIN", tc.domain)
		t.Setenv("BERTH_PREVIEW_WAIT", tc.wait)
		got := FromEnv().Preview
		if err := got.Check(); (err != nil) != tc.bad {
			t.Errorf("domain %q wait %q: Check() = %v, want bad=%v", tc.domain, tc.wait, err, tc.bad)
		}
		if !tc.bad && (got.Domain != tc.want.Domain || got.Wait != tc.want.Wait) {
			t.Errorf("domain %q wait %q: got %+v, want %+v", tc.domain, tc.wait, got, tc.want)
		}
	}
}

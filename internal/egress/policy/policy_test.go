package policy

import (
	"encoding/json"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestParseValidAndNormalized(t *testing.T) {
	p, err := Parse([]byte(`{"mode":"allowlist","domains":["API.GitHub.com.","*.PyPI.org"],"cidrs":["140.82.112.0/20","2606:4700::1"]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	want := `{"mode":"allowlist","domains":["api.github.com","*.pypi.org"],"cidrs":["140.82.112.0/20","2606:4700::1/128"]}`
	if string(b) != want {
		t.Fatalf("got %s want %s", b, want)
	}
	for _, s := range []string{`{"mode":"open"}`, `{"mode":"none"}`, `{}`} {
		if _, err := Parse([]byte(s)); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestValidationErrorsSayWhatIsWrong(t *testing.T) {
	cases := map[string]string{
		`{"mode":"closed"}`:                                   `mode "closed" is not one of`,
		`{"mode":"open","domains":["a.com"]}`:                 "only for mode",
		`{"mode":"allowlist","domains":["exa mple.com"]}`:     `character ' ' is not allowed`,
		`{"mode":"allowlist","domains":["a.*.com"]}`:          "'*' is only allowed",
		`{"mode":"allowlist","domains":["*.com"]}`:            "at least two labels",
		`{"mode":"allowlist","domains":["1.2.3.4"]}`:          "is an IP address: put addresses in cidrs",
		`{"mode":"allowlist","domains":["-a.com"]}`:           "starts or ends with '-'",
		`{"mode":"allowlist","domains":["a..com"]}`:           "empty label",
		`{"mode":"allowlist","cidrs":["10.0.0.0/8"]}`:         "private or special-purpose",
		`{"mode":"allowlist","cidrs":["0.0.0.0/0"]}`:          "private or special-purpose",
		`{"mode":"allowlist","cidrs":["169.254.169.254"]}`:    "private or special-purpose",
		`{"mode":"allowlist","cidrs":["fd00:ec2::254/128"]}`:  "private or special-purpose",
		`{"mode":"allowlist","cidrs":["::ffff:8.8.8.8/128"]}`: "private or special-purpose",
		`{"mode":"allowlist","cidrs":["64:ff9b::a00:1/128"]}`: "private or special-purpose",
		`{"mode":"allowlist","cidrs":["8.8.8.1/24"]}`:         "host bits set (did you mean 8.8.8.0/24?)",
		`{"mode":"allowlist","cidrs":["8.8.8.300/32"]}`:       "is not an address",
		`{"mode":"allowlist","extra":1}`:                      "unknown field",
	}
	for in, want := range cases {
		_, err := Parse([]byte(in))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want error containing %q", in, err, want)
		}
	}
}

func TestForbidden(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "10.1.2.3", "172.17.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1",
		"0.0.0.0", "255.255.255.255", "224.0.0.1", "::1", "fe80::1", "fd00:ec2::254", "::ffff:127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1"} {
		if !Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("%s should be forbidden", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "140.82.112.3", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"} {
		if Forbidden(netip.MustParseAddr(s)) {
			t.Errorf("%s should be allowed", s)
		}
	}
}

func TestMatcher(t *testing.T) {
	m, err := Policy{Mode: Allowlist, Domains: []string{"api.github.com", "*.pypi.org"}, CIDRs: []string{"140.82.112.0/20"}}.Compile()
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]bool{"api.github.com": true, "github.com": false, "files.pypi.org": true,
		"a.b.pypi.org": true, "pypi.org": false, "evilpypi.org": false, "1.2.3.4": false} {
		if got := m.AllowName(h); got != want {
			t.Errorf("AllowName(%s) = %v", h, got)
		}
	}
	for ip, want := range map[string]bool{"140.82.113.4": true, "8.8.8.8": false, "10.0.0.1": false} {
		if got := m.AllowIP(netip.MustParseAddr(ip)); got != want {
			t.Errorf("AllowIP(%s) = %v", ip, got)
		}
	}
	open, _ := Policy{}.Compile()
	if !open.AllowName("anything.example") || !open.AllowIP(netip.MustParseAddr("8.8.8.8")) || open.AllowIP(netip.MustParseAddr("172.17.0.1")) {
		t.Error("open mode: public allowed, private never")
	}
	none, _ := Policy{Mode: None}.Compile()
	if none.AllowName("api.github.com") || none.AllowIP(netip.MustParseAddr("8.8.8.8")) {
		t.Error("none allows nothing")
	}
}

func TestNormalizeHost(t *testing.T) {
	for in, want := range map[string]string{"API.GitHub.com:443": "api.github.com", "example.com.": "example.com"} {
		if got, ok := NormalizeHost(in); !ok || got != want {
			t.Errorf("%s: %s %v", in, got, ok)
		}
	}
	for _, in := range []string{"1.2.3.4", "1.2.3.4:80", "[::1]:443", "::1", "bad host", ""} {
		if _, ok := NormalizeHost(in); ok {
			t.Errorf("%s should not be a name", in)
		}
	}
}

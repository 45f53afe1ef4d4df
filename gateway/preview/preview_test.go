package preview

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/config"
)

func TestPreviewTargetReadsHostNamesAndPaths(t *testing.T) {
	p := &Previews{domain: "preview.example.com"}
	cases := []struct {
		host, target string
		ok           bool
		name         string
		port         int
		path, base   string
	}{
		{"8000-demo.preview.example.com", "/a/b?x=1", true, "demo", 8000, "/a/b", "/"},
		{"8000-my-box.PREVIEW.example.com:8080", "/", true, "my-box", 8000, "/", "/"},
		{"127.0.0.1:8080", "/v1/preview/demo/3000/x/y", true, "demo", 3000, "/x/y", "/v1/preview/demo/3000/"},
		{"127.0.0.1:8080", "/v1/preview/demo/3000", true, "demo", 3000, "/", "/v1/preview/demo/3000/"},
		// Not previews: the API, a deeper subdomain, no port, a bad name.
		{"127.0.0.1:8080", "/v1/sandboxes", false, "", 0, "", ""},
		{"a.8000-demo.preview.example.com", "/v1/sandboxes", false, "", 0, "", ""},
		{"demo.preview.example.com", "/", false, "", 0, "", ""},
		{"8000-Bad_Name.preview.example.com", "/", false, "", 0, "", ""},
		{"127.0.0.1", "/v1/preview/demo/http/", false, "", 0, "", ""},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", c.target, nil)
		r.Host = c.host
		name, port, path, base, ok := p.target(r)
		require.Equal(t, c.ok, ok, "%s%s", c.host, c.target)
		if ok {
			require.Equal(t, []any{c.name, c.port, c.path, c.base}, []any{name, port, path, base}, "%s%s", c.host, c.target)
		}
	}
}

func TestPreviewSettingsComeFromConfig(t *testing.T) {
	p := New(Options{})
	require.Equal(t, config.DefaultPreviewDomain, p.domain)
	require.Equal(t, config.DefaultPreviewWait, p.wait)
	p = New(Options{Config: config.Preview{Domain: "preview.example.com", Wait: 2 * time.Second}})
	require.Equal(t, "preview.example.com", p.domain)
	require.Equal(t, 2*time.Second, p.wait)
}

func TestPreviewUpstreamIsHTTP2OnlyForGRPC(t *testing.T) {
	p := New(Options{})
	for _, c := range []struct {
		major int
		ctype string
		h2c   bool
	}{
		{2, "application/grpc", true},
		{2, "application/grpc+proto", true},
		{2, "application/json", false},
		{1, "application/grpc", false}, // an HTTP/1.1 request stays HTTP/1.1
	} {
		r := httptest.NewRequest("POST", "/", nil)
		r.ProtoMajor = c.major
		r.Header.Set("Content-Type", c.ctype)
		require.Equal(t, c.h2c, p.upstreams.pick(r, "") == p.upstreams.local.h2c, "HTTP/%d %s", c.major, c.ctype)
	}
}

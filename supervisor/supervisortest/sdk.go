package supervisortest

import (
	"net/http"
	"strings"

	"github.com/berthdev/berth/client"
)

// SDKSandbox is an SDK sandbox whose process routes go straight to the
// supervisor at base (http://host:port) with its token: the client's
// /v1/sandboxes/<name>/processes... is the supervisor's /v1/processes....
// Benchmarks use it to time the supervisor's hop without a gateway.
func SDKSandbox(base, token string, rt http.RoundTripper) *client.Sandbox {
	host := strings.TrimPrefix(base, "http://")
	direct := roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		u := *r.URL
		_, rest, _ := strings.Cut(strings.TrimPrefix(u.Path, "/v1/sandboxes/"), "/")
		u.Scheme, u.Host, u.Path, u.RawPath = "http", host, "/v1/"+rest, ""
		r.URL, r.Host = &u, ""
		r.Header.Set("Authorization", "Bearer "+token)
		return rt.RoundTrip(r)
	})
	return client.New("http://supervisor", "unused", client.WithHTTPClient(&http.Client{Transport: direct})).Sandbox("direct")
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

package client_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/supervisor/supervisortest"
)

var supervisorBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "berth-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	supervisorBin, err = supervisortest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const gatewayToken = "gw-token"

// gateway stands in for the real gateway's process routes: it checks the
// gateway token and reverse-proxies /v1/sandboxes/<name>/processes/... to
// the current supervisor's /v1/processes/... with the supervisor token,
// streaming responses as they come. Other routes go to lifecycle, if set.
type gateway struct {
	srv       *httptest.Server
	current   atomic.Pointer[supervisortest.Instance]
	lifecycle http.Handler
}

func newGateway(t testing.TB, sup *supervisortest.Instance) *gateway {
	g := &gateway{}
	g.current.Store(sup)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			inst := g.current.Load()
			u, _ := url.Parse(inst.URL)
			r.SetURL(u)
			_, rest, _ := strings.Cut(r.In.URL.Path, "/processes")
			r.Out.URL.Path = "/v1/processes" + rest
			r.Out.URL.RawPath = ""
			r.Out.Header.Set("Authorization", "Bearer "+inst.Token)
		},
		FlushInterval: -1,
	}
	g.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+gatewayToken {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":{"code":"UNAUTHORIZED","message":"bad token","retryable":false}}`)
			return
		}
		parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/sandboxes/"), "/")
		if len(parts) >= 2 && parts[1] == "processes" {
			proxy.ServeHTTP(w, r)
			return
		}
		if g.lifecycle != nil {
			g.lifecycle.ServeHTTP(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(g.srv.Close)
	return g
}

// setup starts a supervisor behind a gateway and returns a client and the
// sandbox handle "sb".
func setup(t testing.TB, o supervisortest.Options) (*gateway, *client.Client, *client.Sandbox) {
	t.Helper()
	sup := supervisortest.Start(t, supervisorBin, o)
	g := newGateway(t, sup)
	c := client.New(g.srv.URL, gatewayToken)
	return g, c, c.Sandbox("sb")
}

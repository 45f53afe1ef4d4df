package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/berthdev/berth/internal/hosttls"
)

// The direct thaw (docs/design/doze.md): a request that may find its
// sandbox dozing asks the worker of the container's host to unpause it
// (POST /c/<container>/thaw at the host's proxy, or at the worker's unix
// socket on this machine when the host has no proxy), not the workflow:
// the worker answers once the container runs and tells the workflow after.
// Anything else than a clear answer falls back to the thaw update.

// directThawTimeout bounds one direct thaw (the worker waits up to 2 s for
// an activity that holds the container, then answers).
const directThawTimeout = 3 * time.Second

// directThawOutcome is the worker's answer.
type directThawOutcome int

const (
	directUnknown directThawOutcome = iota // ask the workflow
	directThawed                           // it dozed and runs now
	directRunning                          // it was not frozen
)

// thawSockets dials the workers' unix sockets (hosts without a proxy).
type thawSockets struct {
	dataDir string
	once    sync.Once
	client  *http.Client
}

func (ts *thawSockets) httpClient() *http.Client {
	ts.once.Do(func() {
		tr := &http.Transport{
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
				// addr is "<host id>.thaw.invalid:80".
				host, _, _ := net.SplitHostPort(addr)
				var d net.Dialer
				return d.DialContext(ctx, "unix", hosttls.ThawSocket(ts.dataDir, host[:len(host)-len(".thaw.invalid")]))
			},
			MaxIdleConnsPerHost: 8, IdleConnTimeout: time.Minute,
		}
		ts.client = &http.Client{Transport: tr}
	})
	return ts.client
}

// thawDirect asks t's host to thaw t's container.
func (s *Server) thawDirect(ctx context.Context, t target, cause string) directThawOutcome {
	if t.container == "" || t.host == "" {
		return directUnknown
	}
	path := hosttls.RoutedPath(t.container, hosttls.ThawPath) + "?cause=" + url.QueryEscape(cause)
	client := s.supervisors
	var u string
	switch {
	case t.route != "":
		u = "https://" + t.route + path
	case s.thawSockets != nil && hosttls.ThawSocket(s.thawSockets.dataDir, t.host) != "":
		u, client = "http://"+t.host+".thaw.invalid"+path, s.thawSockets.httpClient()
	default:
		return directUnknown
	}
	ctx, cancel := context.WithTimeout(ctx, directThawTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return directUnknown
	}
	req.Header.Set("Authorization", t.auth)
	resp, err := client.Do(req)
	if err != nil {
		return directUnknown
	}
	defer resp.Body.Close()
	var a struct {
		Outcome string `json:"outcome"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, 1024)).Decode(&a) != nil {
		return directUnknown
	}
	switch a.Outcome {
	case "thawed":
		return directThawed
	case "running":
		return directRunning
	}
	return directUnknown
}

package stacktest

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
)

// maxCheckedBody bounds the JSON request bodies the checking proxy keeps
// a copy of; larger bodies pass through unchecked.
const maxCheckedBody = 1 << 20

// CheckedURL is the address of a reverse proxy in front of the gateway
// whose traffic goes through the same spec check as HTTPClient: give it to
// programs outside the test binary (the berth CLI) so that their requests,
// too, are checked against schemas/openapi.yaml. Streams, WebSocket
// upgrades and uploads pass through unchanged.
func (s *Stack) CheckedURL() string {
	s.checkedOnce.Do(func() {
		target, err := url.Parse(s.URL)
		if err != nil {
			panic("stacktest: gateway URL: " + err.Error())
		}
		HTTPClient() // loads the spec
		base := http.DefaultTransport.(*http.Transport).Clone()
		base.MaxIdleConnsPerHost = 32
		rp := httputil.NewSingleHostReverseProxy(target)
		rp.Transport = &specTransport{next: base, c: specCheck}
		rp.FlushInterval = -1 // log and event streams arrive as written
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic("stacktest: checking proxy: " + err.Error())
		}
		s.checked = &http.Server{Handler: keepJSONBody(rp)}
		go s.checked.Serve(ln)
		s.checkedURL = "http://" + ln.Addr().String()
	})
	return s.checkedURL
}

// keepJSONBody makes a small JSON request body readable twice (GetBody),
// as it is for requests from HTTPClient, so that the spec check sees it.
func keepJSONBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isJSON(r.Header.Get("Content-Type")) && r.ContentLength >= 0 && r.ContentLength <= maxCheckedBody {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxCheckedBody+1))
			if err == nil && len(body) <= maxCheckedBody {
				r.Body = io.NopCloser(bytes.NewReader(body))
				r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
			}
		}
		next.ServeHTTP(w, r)
	})
}

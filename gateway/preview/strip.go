package preview

import (
	"net/http"
	"strings"
)

// stripGateway removes from a request bound for a preview's app everything
// that is the gateway's, not the app's: Authorization (a client that sends
// the gateway's bearer token to every URL of the gateway, the CLI's or an
// SDK's, sends it to previews too), every Proxy-* header, the gateway's
// own X-Berth-* headers (the preview token among them) and its preview
// cookie. Sandbox code is hostile: it must never see a credential it could
// replay against the API.
func stripGateway(r *http.Request) {
	for k := range r.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || strings.HasPrefix(lk, "proxy-") || strings.HasPrefix(lk, "x-berth-") {
			delete(r.Header, k)
		}
	}
	stripCookie(r, cookieName)
}

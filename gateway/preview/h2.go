package preview

import "net/http"

// ServerProtocols are the protocols the gateway's listener speaks:
// HTTP/1.1, and HTTP/2 without TLS from clients that know it in advance
// (h2c "prior knowledge", the form a TLS-terminating load balancer uses
// toward its backends). Preview URLs serve apps whose clients speak
// HTTP/2; API clients that speak HTTP/1.1 (and WebSocket upgrades, which
// are HTTP/1.1) are unchanged: an HTTP/2 connection starts with its own
// preface, so the two never mix. The HTTP/2 server bounds what a client
// can hold (the preface must come within 10 s, concurrent streams, header
// size from MaxHeaderBytes, IdleTimeout for a connection with no stream),
// as the HTTP/1.1 limits do. The upgrade form (Upgrade: h2c) is not
// served, as net/http does not implement it.
func ServerProtocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

package gateway

import (
	"net/http"
	"strings"
)

// serverProtocols are the protocols the gateway's listener speaks:
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
func serverProtocols() *http.Protocols {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// upstreamTransport picks how a preview request reaches the app. gRPC
// (an HTTP/2 request of content type application/grpc...) goes over h2c:
// gRPC servers speak only HTTP/2 and need its trailers and full-duplex
// streams. Every other request goes over HTTP/1.1, which every HTTP server
// speaks (an app that speaks only HTTP/1.1 would refuse an h2c preface),
// with the same meaning: bodies stream both ways, responses flush as
// written, trailers pass.
func (p *previewState) upstreamTransport(r *http.Request) http.RoundTripper {
	if r.ProtoMajor == 2 && strings.HasPrefix(r.Header.Get("Content-Type"), "application/grpc") {
		return p.h2c
	}
	return p.transport
}

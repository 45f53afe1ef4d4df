// Package connpool sends HTTP/1.1 requests over pooled keep-alive
// connections and reads their answers on the calling goroutine.
//
// http.Transport hands each request to a connection's write and read
// goroutines and the answer back over channels; on two vCPUs those
// cross-thread wakeups were a fifth to a third of the gateway's hop to a
// supervisor for a short exec (docs/design/testing.md), and a measurable part of an SDK call's round trip. Here
// the caller writes the request (Request.Write) and reads the answer
// (http.ReadResponse) itself. Only requests whose whole body is in memory
// and small (MaxBody) take this way: a streaming upload, TLS and an
// upgrade keep an http.Transport, which also writes and reads at once
// (Transport sends those to its Fallback).
package connpool

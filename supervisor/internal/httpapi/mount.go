// Package httpapi holds what every service of the supervisor shares on the
// wire: JSON and query decoding, rendering api.Error, resolving
// boot-tagged handles and the 429 of the per-sandbox limits. The wire types
// themselves (errors, codes, ids, durations) are package api's.
package httpapi

import "net/http"

// HandlerFunc is a route handler: an error it returns is rendered with
// WriteError (unless the client has gone).
type HandlerFunc func(http.ResponseWriter, *http.Request) error

// Handle registers a route on the supervisor's mux; each service mounts
// its routes through it.
type Handle func(pattern string, h HandlerFunc)

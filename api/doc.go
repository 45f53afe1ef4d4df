// Package api is Berth's HTTP wire contract in Go: the error body and every
// error code, the request and response shapes of the sandbox, backup,
// event, process, log, terminal and file routes, the formats of ids and
// cursors, the duration syntax and the sandbox name rule. schemas/openapi.yaml
// describes the same contract; gateway/openapi_test.go checks the two
// against each other in both directions.
//
// The supervisor, the gateway, the Go client and the CLI all use these
// types, so a field or code is spelled once. It imports only the standard
// library (api_deps_test.go checks it), so a client of the API links
// nothing else.
package api

package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/egress/secrets"
)

// FuzzGatewayRequest drives every route of the gateway in-process with
// fuzzed methods, paths, query strings, headers and bodies. Behind it is a
// Temporal that knows no sandbox (every call about one answers not found,
// a create is accepted) and real file-backed backup and secret stores, so
// what reaches a backend is only what passed validation. Whatever the
// input: no panic, no 5xx, and every error in the documented shape with a
// documented code.
func FuzzGatewayRequest(f *testing.F) {
	for _, s := range gatewaySeeds {
		f.Add(s.method, s.path, s.query, s.header, []byte(s.body))
	}
	h := fuzzGateway(f)
	codes := map[api.Code]bool{}
	for _, c := range api.Codes() {
		codes[c] = true
	}
	f.Fuzz(func(t *testing.T, method uint8, path, query, header string, body []byte) {
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		u := &url.URL{Path: "/v1/" + path, RawQuery: query}
		req, err := http.NewRequest(m, "http://gateway"+u.EscapedPath(), bytes.NewReader(body))
		if err != nil {
			return
		}
		req.URL.RawQuery = query
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Content-Type", "application/json")
		if k, v, ok := strings.Cut(header, ":"); ok && validHeader(k, v) {
			req.Header.Set(k, v)
		}
		// Streams that follow would follow forever: bound every request.
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(ctx))
		checkAnswer(t, codes, m, u.Path, query, rec)
	})
}

// checkAnswer fails on a 5xx and on an error body not in the documented
// shape.
func checkAnswer(t *testing.T, codes map[api.Code]bool, method, path, query string, rec *httptest.ResponseRecorder) {
	t.Helper()
	what := method + " " + path + "?" + query
	if rec.Code >= 500 {
		t.Fatalf("%s: %d %s", what, rec.Code, rec.Body.String())
	}
	if rec.Code < 400 {
		return
	}
	var env struct {
		Error *api.Error `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(rec.Body.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Error == nil {
		t.Fatalf("%s: %d with a body not in the error shape (%v): %q", what, rec.Code, err, rec.Body.String())
	}
	if !codes[env.Error.Code] || env.Error.Message == "" {
		t.Fatalf("%s: %d with an undocumented code or no message: %q", what, rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: %d error with Content-Type %q", what, rec.Code, ct)
	}
}

var fuzzMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions}

// validHeader: what net/http would let a client send at all.
func validHeader(k, v string) bool {
	if k == "" || strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Content-Length") || strings.EqualFold(k, "Host") {
		return false
	}
	for _, r := range k {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune("()<>@,;:\\\"/[]?={}", r) {
			return false
		}
	}
	return !strings.ContainsAny(v, "\r\n\x00")
}

func fuzzGateway(f *testing.F) http.Handler {
	dir := f.TempDir()
	store, err := blob.OpenFile(dir + "/backups")
	if err != nil {
		f.Fatal(err)
	}
	sec, err := secrets.NewFileStore(dir+"/secrets", bytes.Repeat([]byte{7}, 32))
	if err != nil {
		f.Fatal(err)
	}
	types := config.BuiltinInstanceTypes()
	return gateway.New(gateway.Options{Temporal: noSandboxes{}, Namespace: "default", Token: "t", Secret: "s",
		Backups: store, Secrets: sec, InstanceTypes: types, Log: zap.NewNop(),
		// No registry behind the fuzz: images are refused before a lookup.
		Images: []string{"registry.invalid/allowed"}}).Handler()
}

// noSandboxes is a Temporal in which no sandbox exists. A method the
// gateway calls that it lacks panics (the nil embedded interface), which
// the fuzz reports as a 500.
type noSandboxes struct{ client.Client }

func notFound() error { return serviceerror.NewNotFound("workflow not found") }

func (noSandboxes) CheckHealth(context.Context, *client.CheckHealthRequest) (*client.CheckHealthResponse, error) {
	return &client.CheckHealthResponse{}, nil
}

func (noSandboxes) ExecuteWorkflow(context.Context, client.StartWorkflowOptions, any, ...any) (client.WorkflowRun, error) {
	return noRun{}, nil
}

func (noSandboxes) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return nil, notFound()
}

func (noSandboxes) ListWorkflow(context.Context, *workflowservice.ListWorkflowExecutionsRequest) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	return &workflowservice.ListWorkflowExecutionsResponse{}, nil
}

func (noSandboxes) UpdateWorkflow(context.Context, client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	return nil, notFound()
}

func (noSandboxes) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, notFound()
}

func (noSandboxes) SignalWorkflow(context.Context, string, string, string, any) error {
	return notFound()
}

func (noSandboxes) GetWorkflowHistory(context.Context, string, string, bool, enumspb.HistoryEventFilterType) client.HistoryEventIterator {
	return emptyHistory{}
}

type noRun struct{ client.WorkflowRun }

func (noRun) GetID() string                  { return "x" }
func (noRun) GetRunID() string               { return "r" }
func (noRun) Get(context.Context, any) error { return notFound() }

type emptyHistory struct{}

func (emptyHistory) HasNext() bool                          { return true }
func (emptyHistory) Next() (*historypb.HistoryEvent, error) { return nil, notFound() }

// gatewaySeeds reach every route with a valid request and a few invalid
// ones; the fuzzer mutates from here.
var gatewaySeeds = []struct {
	method              uint8
	path, query, header string
	body                string
}{
	{1, "sandboxes", "", "", `{"name":"a","instanceType":"lite","sleepAfter":"30s","keepAlive":true,"env":{"A":"b","C":null}}`},
	{1, "sandboxes", "", "", `{"name":"b","image":"python:3.12"}`},
	{1, "sandboxes", "", "", `{"name":"c","from":{"sandbox":"a","backupId":"x"}}`},
	{1, "sandboxes", "", "", `{"name":"d","egress":{"allow":["example.com"]},"services":[{"name":"web","argv":["sh"],"port":8080}]}`},
	{1, "sandboxes", "", "", `{"name":"Bad Name"}`},
	{1, "sandboxes", "", "", `{"name":"e","sleepAfter":-1}`},
	{0, "sandboxes", "status=running&limit=5&cursor=abc", "", ""},
	{0, "sandboxes/a", "", "", ""},
	{3, "sandboxes/a", "", "", `{"sleepAfter":"1h","keepAlive":false}`},
	{4, "sandboxes/a", "", "", ""},
	{1, "sandboxes/a/start", "backupId=b-1&allowRollback=true", "", `{"backupId":"x"}`},
	{1, "sandboxes/a/sleep", "", "", ""},
	{1, "sandboxes/a/kill", "", "", ""},
	{3, "sandboxes/a/env", "", "", `{"env":{"K":"v","GONE":null}}`},
	{2, "sandboxes/a/egress", "", "", `{"allow":["*.example.com"],"deny":["10.0.0.0/8"]}`},
	{2, "sandboxes/a/services/web", "", "", `{"argv":["sh","-c","x"],"port":8080}`},
	{0, "sandboxes/a/services", "", "", ""},
	{4, "sandboxes/a/services/web", "", "", ""},
	{2, "secrets/team/api-key", "", "", `{"value":"v","hosts":["api.example.com"]}`},
	{0, "secrets/team/api-key", "", "", ""},
	{0, "secrets", "", "", ""},
	{4, "secrets/team/api-key", "", "", ""},
	{1, "sandboxes/a/ports", "", "", `{"port":8080}`},
	{0, "sandboxes/a/ports", "", "", ""},
	{4, "sandboxes/a/ports/8080", "", "", ""},
	{0, "sandboxes/a/events", "after=3&follow=false", "Accept:application/x-ndjson", ""},
	{0, "events", "after=0", "Last-Event-ID:5", ""},
	{0, "hosts", "", "", ""},
	{1, "hosts/h1/drain", "", "", ""},
	{4, "hosts/h1/drain", "", "", ""},
	{4, "hosts/h1", "", "", ""},
	{0, "sandboxes/a/backups", "", "", ""},
	{1, "sandboxes/a/backups", "", "", ""},
	{1, "sandboxes/a/processes", "", "", `{"argv":["sh","-c","echo hi"],"cwd":"/workspace","timeout":"5s"}`},
	{0, "sandboxes/a/processes", "", "", ""},
	{0, "sandboxes/a/processes/p-1/logs", "since=c1&follow=true", "Accept:application/vnd.berth.log-frames", ""},
	{0, "sandboxes/a/processes/p-1/output", "encoding=base64&maxBytes=10&timeout=1s", "", ""},
	{1, "sandboxes/a/processes/p-1/wait", "", "", `{"timeout":"1s"}`},
	{0, "sandboxes/a/files/workspace/x.txt", "", "", ""},
	{2, "sandboxes/a/files/workspace/x.txt", "mode=0644", "", "hello"},
	{0, "sandboxes/a/archive", "path=/workspace", "", ""},
	{0, "sandboxes/a/terminals", "", "Upgrade:websocket", ""},
	{0, "sandboxes/a/stats", "", "", ""},
	{0, "openapi.yaml", "", "", ""},
	{0, "healthz", "", "", ""},
	{5, "sandboxes/%2e%2e/x", "a=%zz", "", ""},
}

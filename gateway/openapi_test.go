package gateway_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.yaml.in/yaml/v3"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway"
	"github.com/berthdev/berth/schemas"
)

// openAPIDoc is the part of the spec the route check reads.
type openAPIDoc struct {
	OpenAPI    string                          `yaml:"openapi"`
	Paths      map[string]map[string]yaml.Node `yaml:"paths"`
	Components struct {
		Schemas map[string]*specSchema `yaml:"schemas"`
	} `yaml:"components"`
}

// specSchema is the part of a component schema the type checks read.
type specSchema struct {
	Enum       []string               `yaml:"enum"`
	Properties map[string]*specSchema `yaml:"properties"`
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

func loadSpec(t *testing.T) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := yaml.Unmarshal(schemas.OpenAPI, &doc); err != nil {
		t.Fatalf("schemas/openapi.yaml does not parse: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Fatalf("openapi: %q, want 3.1.x", doc.OpenAPI)
	}
	return doc
}

// specOps is every "METHOD /path" the spec describes, with {param} paths.
func specOps(doc openAPIDoc) map[string]bool {
	ops := map[string]bool{}
	for path, item := range doc.Paths {
		for m := range item {
			if slices.Contains(httpMethods, m) {
				ops[strings.ToUpper(m)+" "+path] = true
			}
		}
	}
	return ops
}

var echoParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// restParams: routes whose last parameter is the rest of the path (a
// secret name may hold '/'), as the spec names that parameter.
var restParams = map[string]string{"/v1/secrets/*": "/v1/secrets/{secret}", "/ui/assets/*": "/ui/assets/{asset}"}

// routerOps is every route of the gateway's Echo router, with Echo's
// :param turned into {param}. A path registered for every method (Echo's
// Any, the hot-path proxy) is reported in anyPaths instead, and so is its
// /* subtree.
func routerOps(t *testing.T) (ops map[string]bool, anyPaths []string) {
	t.Helper()
	srv := gateway.New(gateway.Options{Log: zap.NewNop(), Token: "t"})
	byPath := map[string][]string{}
	for _, r := range srv.Echo().Routes() {
		p := echoParam.ReplaceAllString(r.Path, "{$1}")
		byPath[p] = append(byPath[p], r.Method)
	}
	ops = map[string]bool{}
	for p, methods := range byPath {
		if len(methods) >= 9 { // registered with Any
			anyPaths = append(anyPaths, p)
			continue
		}
		if named, ok := restParams[p]; ok {
			p = named
		}
		for _, m := range methods {
			ops[m+" "+p] = true
		}
	}
	sort.Strings(anyPaths)
	return ops, anyPaths
}

// underAny reports whether a spec path is served by an Any route: the path
// itself, or a path below a /* route.
func underAny(path string, anyPaths []string) bool {
	for _, a := range anyPaths {
		if prefix, ok := strings.CutSuffix(a, "/*"); ok {
			if strings.HasPrefix(path, prefix+"/") {
				return true
			}
		} else if path == a {
			return true
		}
	}
	return false
}

// TestOpenAPIMatchesRouter fails when a gateway route is missing from
// schemas/openapi.yaml, or the spec names a route the gateway does not have.
func TestOpenAPIMatchesRouter(t *testing.T) {
	doc := loadSpec(t)
	spec := specOps(doc)
	router, anyPaths := routerOps(t)
	if len(router) < 10 || len(anyPaths) == 0 {
		t.Fatalf("router walk found too little: %d routes, any %v", len(router), anyPaths)
	}
	for op := range router {
		if !spec[op] {
			t.Errorf("route %s is served by the gateway but missing from schemas/openapi.yaml", op)
		}
	}
	for _, a := range anyPaths {
		covered := false
		for op := range spec {
			_, path, _ := strings.Cut(op, " ")
			// A proxied subtree counts as described when its root is.
			if underAny(path, []string{a}) || path == strings.TrimSuffix(a, "/*") {
				covered = true
			}
		}
		if !covered {
			t.Errorf("proxied routes %s are served by the gateway but schemas/openapi.yaml describes none of them", a)
		}
	}
	for op := range spec {
		_, path, _ := strings.Cut(op, " ")
		if !router[op] && !underAny(path, anyPaths) {
			t.Errorf("schemas/openapi.yaml describes %s, which the gateway does not serve", op)
		}
	}
}

// TestOpenAPIErrorCodes: the spec's ErrorCode enum and api's codes are the
// same set, so a code added on one side only fails here.
func TestOpenAPIErrorCodes(t *testing.T) {
	doc := loadSpec(t)
	enum := doc.Components.Schemas["ErrorCode"].Enum
	if len(enum) == 0 {
		t.Fatal("components.schemas.ErrorCode has no enum")
	}
	ours := map[string]bool{}
	for _, c := range api.Codes() {
		if ours[string(c)] {
			t.Errorf("api.Codes lists %s twice", string(c))
		}
		ours[string(c)] = true
		if !slices.Contains(enum, string(c)) {
			t.Errorf("error code %s is in package api but missing from components.schemas.ErrorCode", string(c))
		}
	}
	for _, c := range enum {
		if !ours[c] {
			t.Errorf("components.schemas.ErrorCode lists %s, which package api lacks (add it to api/codes.go and Codes)", c)
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	h := gateway.New(gateway.Options{Log: zap.NewNop(), Token: "t"}).Handler()
	req := httptest.NewRequest(http.MethodGet, "/v1/openapi.yaml", nil)
	req.Header.Set("Authorization", "Bearer t")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != http.StatusOK || !bytes.Equal(body, schemas.OpenAPI) {
		t.Fatalf("GET /v1/openapi.yaml: %d, %d bytes; want 200 and the embedded spec", rec.Code, len(body))
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/yaml") {
		t.Fatalf("Content-Type %q", ct)
	}
}

package gateway_test

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/berthdev/berth/api"
)

// wireTypes maps each component schema of schemas/openapi.yaml that
// describes an object to the api type that is its Go form. A schema listed
// here must have exactly the JSON fields of its type.
var wireTypes = map[string]any{
	"Sandbox":        api.Sandbox{},
	"Envelope":       api.Event{},
	"Backup":         api.Backup{},
	"StartRequest":   api.StartRequest{},
	"CreateRequest":  api.CreateRequest{},
	"PatchRequest":   api.PatchRequest{},
	"ExecRequest":    api.ExecRequest{},
	"ExitStatus":     api.ExitStatus{},
	"Process":        api.Process{},
	"LogEvent":       api.LogEvent{},
	"Output":         api.Output{},
	"ProcessResult":  api.ProcessResult{},
	"FileInfo":       api.FileInfo{},
	"FileEvent":      api.FileEvent{},
	"Terminal":       api.Terminal{},
	"Error":          api.ErrorEnvelope{},
	"EgressPolicy":   api.EgressPolicy{},
	"Service":        api.Service{},
	"ExposeRequest":  api.ExposeRequest{},
	"ExposedPort":    api.ExposedPort{},
	"Secret":         api.Secret{},
	"SecretKeys":     api.SecretKeys{},
	"SecretsRekeyed": api.SecretsRekeyed{},
	"SecretRequest":  api.SecretRequest{},
	"ForkFrom":       api.ForkFrom{},
	"HostLoss":       api.HostLoss{},
	"SandboxStats":   api.SandboxStats{},
	"Token":          api.Token{},
	"Actor":          api.Actor{},
	"TokenRequest":   api.TokenRequest{},
}

// jsonFields is the set of JSON names t is encoded with.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case name == "":
			name = f.Name
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

func propNames(s *specSchema) []string {
	var out []string
	for k := range s.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkFields compares a type's JSON fields with a schema's properties in
// both directions, then does the same for nested objects the spec writes
// inline (the body inside the error envelope).
func checkFields(t *testing.T, where string, typ reflect.Type, s *specSchema) {
	t.Helper()
	got, want := jsonFields(typ), propNames(s)
	for _, f := range got {
		if !slices.Contains(want, f) {
			t.Errorf("%s: field %q of %s is not a property in schemas/openapi.yaml", where, f, typ)
		}
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("%s: property %q of schemas/openapi.yaml is not a field of %s", where, p, typ)
		}
	}
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if sub := s.Properties[name]; sub != nil && len(sub.Properties) > 0 && ft.Kind() == reflect.Struct {
			checkFields(t, where+"."+name, ft, sub)
		}
	}
}

// TestOpenAPIWireTypes: the api types and the spec's component schemas have
// the same JSON fields, both ways; an object schema with no api type fails.
func TestOpenAPIWireTypes(t *testing.T) {
	doc := loadSpec(t)
	for name, v := range wireTypes {
		s := doc.Components.Schemas[name]
		if s == nil {
			t.Errorf("api.%T is mapped to components.schemas.%s, which the spec lacks", v, name)
			continue
		}
		checkFields(t, name, reflect.TypeOf(v), s)
	}
	for name, s := range doc.Components.Schemas {
		if _, ok := wireTypes[name]; !ok && len(s.Properties) > 0 {
			t.Errorf("components.schemas.%s has no api type: add one to package api and to wireTypes", name)
		}
	}
}

package conformance

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/berthdev/berth/schemas"
)

// TestSpecIsValidOpenAPI: the clients are written from schemas/openapi.yaml,
// which must itself be a valid OpenAPI 3.1 document (the answers' check
// against it is in every client's run).
func TestSpecIsValidOpenAPI(t *testing.T) {
	doc, err := libopenapi.NewDocument(schemas.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if v := doc.GetVersion(); v[:3] != "3.1" {
		t.Fatalf("openapi %s, want 3.1", v)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs[0])
	}
	ok, verrs := v.ValidateDocument()
	for _, e := range verrs {
		t.Errorf("%s: %s", e.Message, e.Reason)
		for _, se := range e.SchemaValidationErrors {
			t.Errorf("  %s (line %d): %s", se.KeywordLocation, se.Line, se.Reason)
		}
	}
	if !ok && len(verrs) == 0 {
		t.Fatal("the spec is not valid OpenAPI")
	}
}

// TestErrorClassesCoverTheSpec: the TypeScript and Python SDKs have a class
// for every ErrorCode of the spec (sdk/gen_errors.py writes them), so that
// a code added to the API does not reach their users as a bare BerthError.
func TestErrorClassesCoverTheSpec(t *testing.T) {
	spec := string(schemas.OpenAPI)
	start, end := strings.Index(spec, "\n    ErrorCode:"), strings.Index(spec, "\n    Error:")
	if start < 0 || end < start {
		t.Fatal("no ErrorCode schema in the spec")
	}
	codes := regexp.MustCompile(`(?m)^        - ([A-Z_]+)$`).FindAllStringSubmatch(spec[start:end], -1)
	if len(codes) < 10 {
		t.Fatalf("only %d codes found in the spec", len(codes))
	}
	for _, f := range []struct{ path, format string }{
		{"../typescript/src/errors.ts", `static readonly code = %q;`},
		{"../python/berth/errors.py", `code_name = %q`},
	} {
		b, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range codes {
			if !strings.Contains(string(b), fmt.Sprintf(f.format, c[1])) {
				t.Errorf("%s has no class for %s: run sdk/gen_errors.py", f.path, c[1])
			}
		}
	}
}

package conformance

import (
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

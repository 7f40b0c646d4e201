package emulator

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// TestSpecIsValid checks openapi.yaml against the OpenAPI 3.0 rules (examples, patterns, refs), and
// that every operation documents the API's error answers (4XX and 5XX with the Error body).
func TestSpecIsValid(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(api.SpecYAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("openapi.yaml is not valid: %v", err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, code := range []string{"4XX", "5XX"} {
				r := op.Responses.Value(code)
				if r == nil || r.Ref != "#/components/responses/Error" {
					t.Errorf("%s %s (%s) does not document %s with the Error response", method, path, op.OperationID, code)
				}
			}
			if op.OperationID == "" {
				t.Errorf("%s %s has no operationId", method, path)
			}
		}
	}
}

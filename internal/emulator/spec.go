package emulator

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

// BasePath is the path prefix under which the emulator serves the API.
const BasePath = "/v1"

// spec is the parsed openapi.yaml with a router over its operations.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

// loadSpec parses api.SpecYAML once. The router matches paths relative to BasePath on any host:
// find strips BasePath before routing, so the document's servers are dropped.
var loadSpec = sync.OnceValues(func() (*spec, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.SpecYAML)
	if err != nil {
		return nil, fmt.Errorf("parsing: %w", err)
	}
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("building the router: %w", err)
	}
	return &spec{doc: doc, router: router}, nil
})

// routeResult is the operation a request addresses, if any.
type routeResult struct {
	route            *routers.Route
	params           map[string]string
	operationID      string
	methodNotAllowed bool
}

var routeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// find routes r. It does not consume the body.
func (s *spec) find(r *http.Request) routeResult {
	rest, ok := strings.CutPrefix(r.URL.Path, BasePath)
	if !ok || !strings.HasPrefix(rest, "/") {
		return routeResult{}
	}
	lookup := func(method string) (*routers.Route, map[string]string, bool) {
		req := &http.Request{Method: method, URL: &url.URL{Path: rest}}
		route, params, err := s.router.FindRoute(req)
		if err != nil || route == nil || route.Operation == nil {
			return nil, nil, false
		}
		return route, params, true
	}
	if route, params, ok := lookup(r.Method); ok {
		return routeResult{route: route, params: params, operationID: route.Operation.OperationID}
	}
	for _, m := range routeMethods {
		if m == r.Method {
			continue
		}
		if _, _, ok := lookup(m); ok {
			return routeResult{methodNotAllowed: true}
		}
	}
	return routeResult{}
}

// validate checks r against the operation's parameters and request body. Authentication is done by
// the emulator itself, so the document's security requirement is satisfied by a no-op.
func (s *spec) validate(r *http.Request, rt routeResult) error {
	input := &openapi3filter.RequestValidationInput{
		Request:    r,
		PathParams: rt.params,
		Route:      rt.route,
		Options: &openapi3filter.Options{
			AuthenticationFunc:      openapi3filter.NoopAuthenticationFunc,
			SkipSettingDefaults:     true,
			SchemaValidationOptions: []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()},
		},
	}
	return openapi3filter.ValidateRequest(r.Context(), input)
}

// describeValidationError turns a validator error into a short message and a detail sentence.
func describeValidationError(err error) (message, details string) {
	details = oneLine(err.Error())
	var re *openapi3filter.RequestError
	if !errors.As(err, &re) {
		return "invalid request", details
	}
	switch {
	case re.Parameter != nil:
		return fmt.Sprintf("invalid %s parameter %s", re.Parameter.In, re.Parameter.Name), details
	case re.RequestBody == nil:
		return "invalid request", details
	case errors.Is(re.Err, openapi3filter.ErrInvalidRequired):
		return "request body is required", "This operation needs a JSON request body."
	case re.Reason == "failed to decode request body":
		return "malformed JSON in request body", details
	case strings.HasPrefix(re.Reason, "header Content-Type"):
		return "request body must be application/json", details
	}
	var se *openapi3.SchemaError
	if errors.As(re.Err, &se) {
		reason := se.Reason
		if se.SchemaField == "format" && se.Schema != nil {
			reason = fmt.Sprintf("must be a %s string", se.Schema.Format)
		}
		if reason == "" {
			reason = fmt.Sprintf("does not match the schema (%s)", se.SchemaField)
		}
		if ptr := se.JSONPointer(); len(ptr) > 0 {
			return fmt.Sprintf("invalid request body: %s: %s", strings.Join(ptr, "."), reason), details
		}
		return "invalid request body: " + reason, details
	}
	return "invalid request body", details
}

// oneLine collapses whitespace runs (validator errors may span lines).
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Package api holds the dbcloud REST API client: types, client and server interface generated from
// openapi.yaml by oapi-codegen, and the hand-written layer (auth, retries, typed errors, logging).
package api

import _ "embed"

//go:generate go tool oapi-codegen -config oapi-codegen.yaml openapi.yaml

// SpecYAML is openapi.yaml, the single source of truth for the client and the emulator.
//
//go:embed openapi.yaml
var SpecYAML []byte

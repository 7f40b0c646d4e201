// Package emulatortest serves the emulator (package emulator) to a test, with what only tests need:
// hooks that act at a precise moment of a conversation with a client (hooks.go: an Interceptor that
// picks a request's fault, held answers) and direct access to the objects behind the API's back
// (direct.go: out-of-band changes, statuses set at once). The dbcloud-emulator command does not import
// it, so none of it is in the shipped binary (TestShippedBinaryLinksNoTestHooks).
package emulatortest

import "github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"

// Server is an emulator served over HTTP on a loopback address (emulator.Server), with the hooks.
type Server struct {
	*emulator.Server
	hooks *hookState
}

// NewServer starts an emulator on a loopback port with the hooks in its fault stage (they are
// opts.Intercept). Close it when done.
func NewServer(opts emulator.Options) *Server {
	h := &hookState{}
	opts.Intercept = h.intercept
	return &Server{Server: emulator.NewServer(opts), hooks: h}
}

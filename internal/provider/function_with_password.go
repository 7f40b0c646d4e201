package provider

// provider::dbcloud::with_password(uri, password): a PostgreSQL connection URI with the password put
// into its userinfo, percent-encoded as RFC 3986 wants it (the encoding of Go's url.UserPassword).

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ function.Function = (*withPasswordFunction)(nil)

type withPasswordFunction struct{}

// NewWithPasswordFunction returns the with_password provider function.
func NewWithPasswordFunction() function.Function { return &withPasswordFunction{} }

func (f *withPasswordFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "with_password"
}

func (f *withPasswordFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "A PostgreSQL connection URI with a password in it",
		MarkdownDescription: "Returns `uri` with `password` in its userinfo, percent-encoded as RFC 3986 requires, " +
			"as Go's `url.UserPassword` does: `@`, `:`, `/`, `?`, `#`, `%`, spaces and non-ASCII characters are escaped; `+` " +
			"and the other sub-delimiters that RFC 3986 allows in userinfo stay as they are (libpq reads them as themselves). " +
			"A password already in `uri` is replaced; everything else of `uri` is kept as it is. A null `password` " +
			"returns `uri` unchanged, so a configuration works whether or not it knows the password. (OpenTofu, 1.12.6 " +
			"tested, sends a null argument without a value and the call fails with \"Unable to Convert Function " +
			"Argument\": there, write `var.password == null ? uri : provider::dbcloud::with_password(uri, var.password)`.)\n\n" +
			"`uri` must be a `postgresql://` or `postgres://` URI with a user name, such as " +
			"`postgresql://tsdbadmin@<hostname>:<port>/tsdb?sslmode=require` built from a service's `hostname` and `port`; " +
			"anything else is an error. The result holds a secret: pass the password from a sensitive value (the result is " +
			"then sensitive too) or an ephemeral one (the result is then ephemeral).",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "uri",
				MarkdownDescription: "A `postgresql://` or `postgres://` connection URI with a user name, e.g. `postgresql://tsdbadmin@host:5432/tsdb?sslmode=require`.",
			},
			function.StringParameter{
				Name:                "password",
				AllowNullValue:      true,
				MarkdownDescription: "The password, as it is (not encoded). Null returns `uri` unchanged.",
			},
		},
		Return: function.StringReturn{},
	}
}

func (f *withPasswordFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var uri string
	var password types.String
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &uri, &password))
	if resp.Error != nil {
		return
	}
	out, err := uriWithPassword(uri, password)
	if err != nil {
		resp.Error = function.NewArgumentFuncError(0, "Invalid uri: "+err.Error())
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, out))
}

// uriWithPassword is the pure heart of with_password: uri with the password in its userinfo (null
// password: uri unchanged). Only the userinfo changes: the user name stays as written and everything
// after the userinfo is kept byte for byte. The error says why uri is not a PostgreSQL URI; it never
// contains the password.
func uriWithPassword(uri string, password types.String) (string, error) {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok || (!strings.EqualFold(scheme, "postgresql") && !strings.EqualFold(scheme, "postgres")) {
		return "", fmt.Errorf("%q is not a postgresql:// or postgres:// URI", redactUserinfo(uri))
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid URI: %s", redactUserinfo(uri), strings.TrimPrefix(err.Error(), fmt.Sprintf("parse %q: ", uri)))
	}
	if u.User == nil || u.User.Username() == "" {
		return "", fmt.Errorf("%q names no user: a password needs one (e.g. postgresql://tsdbadmin@host:5432/tsdb)", redactUserinfo(uri))
	}
	if password.IsNull() {
		return uri, nil
	}
	// The authority ends at the first '/', '?' or '#'; its userinfo ends at its last '@' (as url.Parse
	// reads it).
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	rawUser, _, _ := strings.Cut(authority[:at], ":")
	return scheme + "://" + rawUser + url.UserPassword("", password.ValueString()).String() + rest[at:], nil
}

// redactUserinfo replaces a password in a URI-like string by "***" for an error message.
func redactUserinfo(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	authority := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		authority = rest[:i]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return uri
	}
	user, _, hasPassword := strings.Cut(authority[:at], ":")
	if !hasPassword {
		return uri
	}
	return scheme + "://" + user + ":***" + rest[at:]
}

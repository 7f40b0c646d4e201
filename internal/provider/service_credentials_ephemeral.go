package provider

// The ephemeral resource dbcloud_service_credentials (Terraform >= 1.10): a database login made for
// one Terraform run, the framework side. internal/logins makes and drops the login on the
// service's PostgreSQL; the service's facts (standby record, endpoint, connection strings, pooler)
// come from the service's own mapping (flattenService). Nothing of it is ever stored in state.
//
// A login that cannot be made now for a reason the same run may remove (the service is paused,
// not READY or gone, refuses admin_password, or lacks a role of member_of) does not stop a plan:
// Open warns and answers null values (wholly known: OpenTofu refuses an ephemeral result with
// unknown values), so that a plan goes on (and a destroy is never blocked); outside a plan it is
// an error (logins_stop.go tells the walks apart), except on a service the same apply paused (this
// run's pauses, service_pauses.go): it gets the warning and null values too. A login whose inputs are unknown while planning
// (the service replaced, a role made in the same run) Terraform opens only at apply, once they
// are known.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral"
	"github.com/hashicorp/terraform-plugin-framework/ephemeral/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"github.com/jackc/pgx/v5"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/logins"
)

const serviceCredentialsTypeName = "dbcloud_service_credentials"

// Bounds of ttl and statement_timeout.
const (
	credentialsDefaultTTL = time.Hour
	credentialsMinTTL     = time.Minute
	credentialsMaxTTL     = 7 * 24 * time.Hour
	credentialsUserPrefix = logins.UserPrefix
	readOnlyRoleSetting   = logins.ReadOnlyRoleSetting
)

// credentialsLoginTimeout bounds what Open does on the service's database (connect, create the
// login, drop leftovers); a test may shorten it.
var credentialsLoginTimeout = 2 * time.Minute

var (
	_ ephemeralImpl                                 = (*serviceCredentials)(nil)
	_ ephemeral.EphemeralResourceWithClose          = (*serviceCredentials)(nil)
	_ ephemeral.EphemeralResourceWithValidateConfig = (*serviceCredentials)(nil)
)

// NewServiceCredentialsEphemeralResource returns the dbcloud_service_credentials ephemeral resource.
func NewServiceCredentialsEphemeralResource() ephemeral.EphemeralResource {
	return manageEphemeral(&serviceCredentials{})
}

type serviceCredentials struct {
	pd *providerData
	// dial connects to the endpoint; tests may replace it. nil: pgx.ConnectConfig.
	dial func(context.Context, *pgx.ConnConfig) (*pgx.Conn, error)
}

type serviceCredentialsModel struct {
	ServiceID           types.String `tfsdk:"service_id"`
	AdminPassword       types.String `tfsdk:"admin_password"`
	TTL                 types.String `tfsdk:"ttl"`
	ReadOnly            types.Bool   `tfsdk:"read_only"`
	MemberOf            types.Set    `tfsdk:"member_of"`
	StatementTimeout    types.String `tfsdk:"statement_timeout"`
	CACertificate       types.String `tfsdk:"ca_certificate"`
	Username            types.String `tfsdk:"username"`
	Password            types.String `tfsdk:"password"`
	ConnectionURI       types.String `tfsdk:"connection_uri"`
	PoolerConnectionURI types.String `tfsdk:"pooler_connection_uri"`
	ExpiresAt           types.String `tfsdk:"expires_at"`
}

func (r *serviceCredentials) Metadata(_ context.Context, _ ephemeral.MetadataRequest, resp *ephemeral.MetadataResponse) {
	resp.TypeName = serviceCredentialsTypeName
}

func (r *serviceCredentials) dataSlot() **providerData { return &r.pd } // Configure: manageEphemeral

func (r *serviceCredentials) Schema(_ context.Context, _ ephemeral.SchemaRequest, resp *ephemeral.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A database login made for one Terraform run (Terraform 1.10 and later): a new PostgreSQL role on " +
			"the service with a random password that expires after `ttl`, member of the roles in `member_of`, optionally " +
			"read-only. Nothing of it is stored in the plan or the state. At the end of the run the provider drops the " +
			"role again, after handing what it owns to `tsdbadmin`; that is best effort (for example when the run is " +
			"killed), the login stops working at `expires_at` anyway, and the next run of the same configuration drops " +
			"what an earlier one left, naming each login.\n\n" +
			"The provider makes the role by connecting to the service's endpoint as `tsdbadmin`, so the machine that runs " +
			"Terraform must reach the endpoint. The connection uses TLS and verifies the server's certificate (the system's " +
			"roots, or `ca_certificate`) and host name; only a loopback endpoint (a local emulator) is accepted without " +
			"verification.",
		Attributes: map[string]schema.Attribute{
			"service_id": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The id of the service (a primary: roles are made there and replicate to its read replica sets; a replica set's id is refused).",
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"admin_password": schema.StringAttribute{
				Required:  true,
				Sensitive: true,
				MarkdownDescription: "The password of `tsdbadmin` on the service: from an ephemeral variable, another ephemeral resource (a secret " +
					"store) or `dbcloud_service.<name>.password`. It is used only for the connection that makes and drops the login.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"ttl": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: fmt.Sprintf("How long the login is valid, as a duration such as `30m` or `2h` (default `%s`, at least `%s`, at most `%s`). "+
					"The role's `VALID UNTIL` is the service's clock plus `ttl`.", "1h", "1m", "168h"),
				Validators: []validator.String{durationBetween(credentialsMinTTL, credentialsMaxTTL)},
			},
			"read_only": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "Make the login read-only, the service's way (`ALTER ROLE ... SET " + readOnlyRoleSetting + " = true`): it reads what " +
					"its roles may read and cannot change data, schema, roles, grants or stored settings, even if it turns " +
					"`default_transaction_read_only` off; what PostgreSQL allows in a read-only transaction (`VACUUM`, `LOCK`, " +
					"`NOTIFY`, ...) it can still do, with its roles' privileges (the \"Connecting to a service\" guide lists it under " +
					"\"Read-only connections\"). Default `false`.",
			},
			"member_of": schema.SetAttribute{
				Optional:    true,
				ElementType: types.StringType,
				MarkdownDescription: "Roles whose privileges the login gets (`IN ROLE`); each must exist on the service. `tsdbadmin` is allowed only " +
					"with `read_only = true` (the service's read-only role that inherits `tsdbadmin`). Tables a login creates belong to " +
					"the login and are handed to `tsdbadmin` when it is dropped: to keep them owned by an application role, run " +
					"`SET ROLE <role>` first.",
				Validators: []validator.Set{setvalidator.ValueStringsAre(stringvalidator.LengthBetween(1, 63))},
			},
			"statement_timeout": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "The login's `statement_timeout` (a duration such as `30s`; at least `1ms`, at most `24h`). Default: the service's.",
				Validators:          []validator.String{durationBetween(time.Millisecond, 24*time.Hour)},
			},
			"ca_certificate": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "PEM certificates to verify the service's TLS certificate with, instead of the system's roots. The host name " +
					"is verified either way.",
			},
			"username": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The login's role name: `" + credentialsUserPrefix + "` and random letters and digits, unique per run.",
			},
			"password": schema.StringAttribute{
				Computed:            true,
				Sensitive:           true,
				MarkdownDescription: "The login's random password.",
			},
			"connection_uri": schema.StringAttribute{
				Computed:  true,
				Sensitive: true,
				MarkdownDescription: "`postgresql://<username>:<password>@<host>:<port>/tsdb?sslmode=require` for the service's endpoint, with the " +
					"password percent-encoded.",
			},
			"pooler_connection_uri": schema.StringAttribute{
				Computed:            true,
				Sensitive:           true,
				MarkdownDescription: "The same through the connection pooler; null when the pooler is off.",
			},
			"expires_at": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "When the login stops working (RFC 3339, the service's clock).",
			},
		},
	}
}

func (r *serviceCredentials) ValidateConfig(ctx context.Context, req ephemeral.ValidateConfigRequest, resp *ephemeral.ValidateConfigResponse) {
	var m serviceCredentialsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() || m.MemberOf.IsUnknown() || m.ReadOnly.IsUnknown() {
		return
	}
	var roles []types.String
	resp.Diagnostics.Append(m.MemberOf.ElementsAs(ctx, &roles, false)...)
	for _, role := range roles {
		if role.ValueString() == serviceDatabaseRole && !m.ReadOnly.ValueBool() {
			resp.Diagnostics.AddAttributeError(path.Root("member_of"), "tsdbadmin only with read_only",
				"A login may be a member of tsdbadmin only when it is read-only (read_only = true), as on the service itself. "+
					"For a login that writes, make an application role that owns the schema (for example with the PostgreSQL provider) and name it in member_of.")
		}
	}
}

// ---- Open ----

func (r *serviceCredentials) Open(ctx context.Context, req ephemeral.OpenRequest, resp *ephemeral.OpenResponse) {
	var m serviceCredentialsModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	adminPassword := m.AdminPassword.ValueString()
	if adminPassword != "" { // masking "" would mask between every character
		ctx = tflog.MaskMessageStrings(ctx, adminPassword)
		ctx = tflog.MaskAllFieldValuesStrings(ctx, adminPassword)
	}
	spec, diags := m.loginSpec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	id := m.ServiceID.ValueString()
	svc, later := r.primaryService(ctx, id, &resp.Diagnostics)
	if later.why != "" {
		r.notNow(ctx, &m, resp, id, later)
		return
	}
	if svc == nil {
		return
	}
	f := flattenService(svc)
	target, err := logins.NewTarget(f.Hostname.ValueString(), int(f.Port.ValueInt64()), m.CACertificate.ValueString(), api.IsLoopbackHost(f.Hostname.ValueString()))
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("ca_certificate"), "Invalid ca_certificate", err.Error())
		return
	}
	target.AdminPassword, target.Dial = adminPassword, r.dial
	if err := target.NewLogin(); err != nil {
		resp.Diagnostics.AddError("Could not generate the login", err.Error())
		return
	}
	ctx = tflog.MaskMessageStrings(ctx, target.LoginPassword)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, target.LoginPassword)
	// The API read above rode any outage for the provider's outage budget (outage_timeout), as every
	// read does; the work on the service's database has its own bound.
	ctx, cancel := context.WithTimeout(ctx, credentialsLoginTimeout)
	defer cancel()

	spec.Key = loginKey(id, spec)
	makingLogins.Store(target.Login, true) // not a leftover for a sweep running alongside
	defer makingLogins.Delete(target.Login)
	expires, err := target.Create(ctx, spec)
	switch {
	case errors.Is(err, logins.ErrAdminPasswordRefused), errors.Is(err, logins.ErrRoleMissing):
		r.notNow(ctx, &m, resp, id, laterReason{why: target.Mask(err.Error())})
		return
	case err != nil:
		resp.Diagnostics.AddError("Could not create a login on service "+id, target.Mask(err.Error()))
		return
	}
	tflog.Info(ctx, "dbcloud_service_credentials: login created", map[string]any{"service_id": id, "username": target.Login, "expires_at": expires.Format(time.RFC3339)})
	m.Username, m.Password = types.StringValue(target.Login), types.StringValue(target.LoginPassword)
	m.ConnectionURI, m.PoolerConnectionURI = loginURI(f.ConnectionURI, target), loginURI(f.PoolerConnectionURI, target)
	m.ExpiresAt = types.StringValue(expires.UTC().Format(time.RFC3339))
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)

	// Close needs the admin password again: it stays in this process (never in Terraform's private data).
	target.Service, target.Expires = id, expires
	token := openLogins.Add(target)
	b, _ := json.Marshal(credentialsPrivate{Token: token, ServiceID: id, Username: target.Login, ExpiresAt: m.ExpiresAt.ValueString()})
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, credentialsPrivateKey, b)...)
	dropLeftovers(ctx, target, spec.Key, &resp.Diagnostics)
}

// loginURI is a connection string of the service (no password) for the login; null when it is.
func loginURI(uri types.String, t *logins.Target) types.String {
	if uri.IsNull() || uri.IsUnknown() {
		return types.StringNull()
	}
	s, err := logins.WithUser(uri.ValueString(), t.Login, t.LoginPassword)
	if err != nil {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// laterReason says why a login cannot be made now; paused: because the service is paused
// (api.Service.Paused).
type laterReason struct {
	why    string
	paused bool
}

// notNow answers a login that cannot be made now, for a reason the run itself may remove. While
// planning (logins_stop.go), and in an apply that paused the service: null values and a warning that
// says why, so that the plan, the destroy or the apply that pauses the service goes on; what uses the
// login then gets null values. Otherwise an error.
func (r *serviceCredentials) notNow(ctx context.Context, m *serviceCredentialsModel, resp *ephemeral.OpenResponse, id string, later laterReason) {
	planning := r.pd.walk.planning()
	pausedHere := later.paused && r.pd.pauses.pausedByThisRun(id)
	if !planning && !pausedHere {
		resp.Diagnostics.AddError("Could not create a login on service "+id, later.why+".")
		return
	}
	detail := later.why + ".\n\nWhile planning, the login's values are null: the plan (or destroy) goes on, and the login is made when " +
		"the run applies, after what it depends on (the service, its new password, the roles of member_of). Nothing was created on the service."
	if !planning {
		detail = later.why + ".\n\nThis run paused the service, so the login's values are null in this run: a provisioner or provider that uses " +
			"them gets null values (a local-exec environment variable is left unset). Nothing was created on the service."
	}
	resp.Diagnostics.AddWarning("No login made on service "+id, detail)
	m.Username, m.Password, m.ConnectionURI = types.StringNull(), types.StringNull(), types.StringNull()
	m.PoolerConnectionURI, m.ExpiresAt = types.StringNull(), types.StringNull()
	resp.Diagnostics.Append(resp.Result.Set(ctx, m)...)
}

// loginSpec is what the configuration asks of the login (ttl, member_of sorted, read_only,
// statement_timeout); the durations were validated at plan time.
func (m *serviceCredentialsModel) loginSpec(ctx context.Context) (logins.Spec, diag.Diagnostics) {
	spec := logins.Spec{TTL: credentialsDefaultTTL, ReadOnly: m.ReadOnly.ValueBool()}
	if !m.TTL.IsNull() {
		spec.TTL, _ = time.ParseDuration(m.TTL.ValueString())
	}
	if !m.StatementTimeout.IsNull() {
		spec.StatementTimeout, _ = time.ParseDuration(m.StatementTimeout.ValueString())
	}
	diags := m.MemberOf.ElementsAs(ctx, &spec.MemberOf, false)
	slices.Sort(spec.MemberOf)
	return spec, diags
}

// primaryService reads the service and checks that logins can be made on it: a primary (not a
// read replica set's id; an error), READY, with an endpoint. A service that is gone, paused or not
// READY answers why in later (the run may change that; a destroy must not stop there).
func (r *serviceCredentials) primaryService(ctx context.Context, id string, diags *diag.Diagnostics) (svc *api.Service, later laterReason) {
	svc, err := r.pd.client.GetService(ctx, id)
	if api.IsNotFound(err) {
		if primary := r.replicaSetPrimary(ctx, id); primary != "" {
			replicaSetRefused(diags, id, primary)
			return nil, laterReason{}
		}
		return nil, laterReason{why: fmt.Sprintf("No service with id %s exists in the provider's project (%v): it is gone, or service_id is wrong", id, err)}
	}
	if err != nil {
		r.pd.addError(ctx, diags, "Could not read service "+id, err)
		return nil, laterReason{}
	}
	if isStandbyRecord(svc) {
		replicaSetRefused(diags, id, deref(svc.ForkedFrom.ServiceID))
		return nil, laterReason{}
	}
	status := deref(svc.Status)
	switch {
	case svc.Paused():
		return nil, laterReason{paused: true, why: fmt.Sprintf("Service %s is %s: a paused service accepts no logins. Resume it (the dbcloud_service_resume action, or paused = false on the resource) to use logins", id, status)}
	case status != api.READY:
		return nil, laterReason{why: fmt.Sprintf("Service %s is %s, not READY: a login can be made once it is READY", id, orUnknown(string(status)))}
	case svc.Endpoint == nil || deref(svc.Endpoint.Host) == "" || deref(svc.Endpoint.Port) == 0:
		diags.AddError("Service "+id+" has no endpoint", "The API answered no endpoint for service "+id+"; a login cannot be made.")
		return nil, laterReason{}
	}
	return svc, laterReason{}
}

// replicaSetPrimary answers the primary whose read replica sets include id ("" if none or the
// list fails).
func (r *serviceCredentials) replicaSetPrimary(ctx context.Context, id string) string {
	svcs, err := r.pd.client.ListServices(ctx)
	if err != nil {
		return ""
	}
	for _, s := range svcs {
		for _, rs := range deref(s.ReadReplicaSets) {
			if deref(rs.ID) == id {
				return deref(s.ServiceID)
			}
		}
	}
	return ""
}

func replicaSetRefused(diags *diag.Diagnostics, id, primary string) {
	diags.AddAttributeError(path.Root("service_id"), "service_id is a read replica set",
		fmt.Sprintf("%s is a read replica set of service %s. A replica set is read-only: logins are made on the primary and replicate to its "+
			"replica sets. Set service_id to %s and connect the login to the replica set's endpoint (with provider::dbcloud::with_password on its connection_uri).",
			id, orUnknown(primary), orUnknown(primary)))
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// ---- Close ----

const credentialsPrivateKey = "login"

type credentialsPrivate struct {
	Token     string `json:"token"`
	ServiceID string `json:"service_id"`
	Username  string `json:"username"`
	ExpiresAt string `json:"expires_at"`
}

// Close drops the login. It runs also when the run was interrupted (Ctrl-C), when Terraform has
// already told the provider to stop and every request's context is cancelled: the drop gets a
// minute of its own. What it cannot drop it names, with its expiry.
func (r *serviceCredentials) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	b, d := req.Private.GetKey(ctx, credentialsPrivateKey)
	resp.Diagnostics.Append(d...)
	var p credentialsPrivate
	if len(b) == 0 || json.Unmarshal(b, &p) != nil {
		return
	}
	t := openLogins.Take(p.Token)
	if _, dropped := droppedAtStop.Load(p.Token); t == nil && dropped {
		return
	}
	if t == nil {
		resp.Diagnostics.AddWarning("Login "+p.Username+" was not dropped",
			fmt.Sprintf("The provider no longer knows how to reach service %s to drop login %s; it stops working at %s.", p.ServiceID, p.Username, p.ExpiresAt))
		return
	}
	if t.AdminPassword != "" {
		ctx = tflog.MaskMessageStrings(ctx, t.AdminPassword, t.LoginPassword)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := t.Drop(ctx); err != nil {
		name := pgx.Identifier{p.Username}.Sanitize()
		resp.Diagnostics.AddWarning("Login "+p.Username+" was not dropped",
			fmt.Sprintf("Dropping login %s on service %s failed: %s\n\nIt stops working at %s anyway; drop it yourself (REASSIGN OWNED BY %s TO tsdbadmin; DROP OWNED BY %s; DROP ROLE %s) if it should go sooner.",
				p.Username, p.ServiceID, t.Mask(err.Error()), p.ExpiresAt, name, name, name))
		return
	}
	tflog.Info(ctx, "dbcloud_service_credentials: login dropped", map[string]any{"service_id": p.ServiceID, "username": p.Username})
}

// durationBetween validates a Go duration string within [lo, hi].
func durationBetween(lo, hi time.Duration) validator.String { return durationValidator{lo: lo, hi: hi} }

type durationValidator struct{ lo, hi time.Duration }

func (v durationValidator) Description(context.Context) string {
	return fmt.Sprintf("a duration such as 30m or 2h, from %s to %s", v.lo, v.hi)
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationValidator) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is not a duration: want %s (units: ms, s, m, h).", req.ConfigValue.ValueString(), v.Description(ctx)))
	case d < v.lo || d > v.hi:
		resp.Diagnostics.AddAttributeError(req.Path, "Duration out of range",
			fmt.Sprintf("%s is out of range: want %s.", req.ConfigValue.ValueString(), v.Description(ctx)))
	}
}

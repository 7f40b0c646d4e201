package provider

// The ephemeral resource dbcloud_service_credentials (Terraform >= 1.10): a database login made for
// one Terraform run. Open connects to the service's endpoint as tsdbadmin over TLS that verifies
// the server and, in one transaction, creates a role with LOGIN, a random password, VALID UNTIL
// now + ttl, the requested membership, read-only setting and statement timeout (api-facts:
// "Connecting to a service"). Close hands what the role owns to tsdbadmin and drops it; it is best
// effort: the expiry ends the login anyway. Nothing of it is ever stored in state.

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/api"
)

const serviceCredentialsTypeName = "dbcloud_service_credentials"

// Bounds of ttl and statement_timeout.
const (
	credentialsDefaultTTL = time.Hour
	credentialsMinTTL     = time.Minute
	credentialsMaxTTL     = 7 * 24 * time.Hour
	// credentialsUserPrefix starts every generated login's name.
	credentialsUserPrefix = "tf_login_"
	// readOnlyRoleSetting is the role setting the real service's extension enforces (api-facts).
	readOnlyRoleSetting = "tsdb_admin.read_only_role"
)

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
			"killed), and the login stops working at `expires_at` anyway.\n\n" +
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
					"its roles may read and cannot write, even if it turns `default_transaction_read_only` off. Default `false`.",
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
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	spec, diags := m.loginSpec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}

	svc, ok := r.primaryService(ctx, m.ServiceID.ValueString(), &resp.Diagnostics)
	if !ok {
		return
	}
	host, port := deref(svc.Endpoint.Host), deref(svc.Endpoint.Port)
	target, err := endpointTarget(host, port, m.CACertificate.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("ca_certificate"), "Invalid ca_certificate", err.Error())
		return
	}
	target.adminPassword = adminPassword

	if err := target.newLogin(); err != nil {
		resp.Diagnostics.AddError("Could not generate the login", err.Error())
		return
	}
	username := target.login
	ctx = tflog.MaskMessageStrings(ctx, target.loginPassword)
	ctx = tflog.MaskAllFieldValuesStrings(ctx, target.loginPassword)

	expires, err := r.createLogin(ctx, target, spec)
	if err != nil {
		resp.Diagnostics.AddError("Could not create a login on service "+deref(svc.ServiceID), target.mask(err.Error()))
		return
	}
	tflog.Info(ctx, "dbcloud_service_credentials: login created", map[string]any{"service_id": deref(svc.ServiceID), "username": username, "expires_at": expires.Format(time.RFC3339)})

	m.setResult(svc, target, expires)
	resp.Diagnostics.Append(resp.Result.Set(ctx, &m)...)

	// Close needs the admin password again: it stays in this process (never in Terraform's private data).
	token := openLogins.add(target)
	b, _ := json.Marshal(credentialsPrivate{Token: token, ServiceID: deref(svc.ServiceID), Username: username, ExpiresAt: m.ExpiresAt.ValueString()})
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, credentialsPrivateKey, b)...)
}

// loginSpec is what the configuration asks of the login (ttl, member_of sorted, read_only,
// statement_timeout); the durations were validated at plan time.
func (m *serviceCredentialsModel) loginSpec(ctx context.Context) (loginSpec, diag.Diagnostics) {
	spec := loginSpec{ttl: credentialsDefaultTTL, readOnly: m.ReadOnly.ValueBool()}
	if !m.TTL.IsNull() {
		spec.ttl, _ = time.ParseDuration(m.TTL.ValueString())
	}
	if !m.StatementTimeout.IsNull() {
		spec.statementTimeout, _ = time.ParseDuration(m.StatementTimeout.ValueString())
	}
	diags := m.MemberOf.ElementsAs(ctx, &spec.memberOf, false)
	slices.Sort(spec.memberOf)
	return spec, diags
}

// setResult fills the results of a login made on svc (the password goes into the URIs too).
func (m *serviceCredentialsModel) setResult(svc *api.Service, t *loginTarget, expires time.Time) {
	host, port := deref(svc.Endpoint.Host), deref(svc.Endpoint.Port)
	m.Username = types.StringValue(t.login)
	m.Password = types.StringValue(t.loginPassword)
	m.ConnectionURI = types.StringValue(loginURI(host, port, t.login, t.loginPassword))
	m.PoolerConnectionURI = types.StringNull()
	if p := svc.ConnectionPooler; p != nil && p.Endpoint != nil && deref(p.Endpoint.Host) != "" {
		m.PoolerConnectionURI = types.StringValue(loginURI(deref(p.Endpoint.Host), deref(p.Endpoint.Port), t.login, t.loginPassword))
	}
	m.ExpiresAt = types.StringValue(expires.UTC().Format(time.RFC3339))
}

// newLogin generates the login's name (recognisable: the prefix, then random) and its password.
func (t *loginTarget) newLogin() error {
	username, err := randomString(credentialsUserPrefix, "abcdefghijklmnopqrstuvwxyz0123456789", 12)
	if err != nil {
		return err
	}
	pw, err := randomString("", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 40)
	if err != nil {
		return err
	}
	t.login, t.loginPassword = username, pw
	return nil
}

// primaryService reads the service and checks that logins can be made on it: a primary (not a
// read replica set's id), READY, with an endpoint.
func (r *serviceCredentials) primaryService(ctx context.Context, id string, diags *diag.Diagnostics) (*api.Service, bool) {
	svc, err := r.pd.client.GetService(ctx, id)
	if api.IsNotFound(err) {
		if primary := r.replicaSetPrimary(ctx, id); primary != "" {
			replicaSetRefused(diags, id, primary)
			return nil, false
		}
		diags.AddAttributeError(path.Root("service_id"), "Service not found",
			fmt.Sprintf("No service with id %s exists in the provider's project (%v). Check service_id.", id, err))
		return nil, false
	}
	if err != nil {
		r.pd.addError(ctx, diags, "Could not read service "+id, err)
		return nil, false
	}
	if f := svc.ForkedFrom; f != nil && deref(f.IsStandby) {
		replicaSetRefused(diags, id, deref(f.ServiceID))
		return nil, false
	}
	status := api.ServiceStatus("")
	if svc.Status != nil {
		status = *svc.Status
	}
	switch {
	case status == api.PAUSED || status == api.PAUSING:
		diags.AddError("Service "+id+" is paused",
			fmt.Sprintf("Service %s is %s: a paused service accepts no logins. Resume it (the dbcloud_service_resume action, or paused = false on the resource) and run again.", id, status))
		return nil, false
	case status != api.READY:
		diags.AddError("Service "+id+" is not ready",
			fmt.Sprintf("Service %s is %s, not READY: a login can be made once it is READY. Run again when it is (a service made in the same configuration is waited for: reference dbcloud_service.<name>.id).", id, orUnknown(string(status))))
		return nil, false
	case svc.Endpoint == nil || deref(svc.Endpoint.Host) == "" || deref(svc.Endpoint.Port) == 0:
		diags.AddError("Service "+id+" has no endpoint", "The API answered no endpoint for service "+id+"; a login cannot be made.")
		return nil, false
	}
	return svc, true
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

// ---- the database side ----

// loginTarget is where and as whom the provider connects, and the login it makes.
type loginTarget struct {
	host          string
	port          int
	tls           *tls.Config
	adminPassword string
	login         string
	loginPassword string
}

// mask removes the passwords from a text (an error message).
func (t *loginTarget) mask(s string) string {
	for _, secret := range []string{t.adminPassword, t.loginPassword} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "(sensitive value)")
		}
	}
	return s
}

// endpointTarget sets the TLS up for an endpoint: the server is verified against caPEM (when set)
// or the system's roots, with the endpoint's host name; a loopback endpoint (a local emulator)
// without caPEM is accepted without verification.
func endpointTarget(host string, port int, caPEM string) (*loginTarget, error) {
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	switch {
	case strings.TrimSpace(caPEM) != "":
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(caPEM)) {
			return nil, errors.New("ca_certificate holds no PEM certificate")
		}
		cfg.RootCAs = pool
	case api.IsLoopbackHost(host):
		cfg.InsecureSkipVerify = true //nolint:gosec // loopback only: a local emulator's self-signed certificate
	}
	return &loginTarget{host: host, port: port, tls: cfg}, nil
}

// loginSpec is what the login gets.
type loginSpec struct {
	ttl              time.Duration
	readOnly         bool
	memberOf         []string
	statementTimeout time.Duration
}

// connectAdmin connects as tsdbadmin to tsdb over the target's TLS (no plain-text fallback).
func (r *serviceCredentials) connectAdmin(ctx context.Context, t *loginTarget) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig("connect_timeout=20 sslmode=verify-full")
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Port = t.host, uint16(t.port)
	cfg.User, cfg.Password, cfg.Database = serviceDatabaseRole, t.adminPassword, serviceDatabaseName
	cfg.TLSConfig = t.tls
	cfg.Fallbacks = nil
	cfg.RuntimeParams["application_name"] = "terraform-provider-dbcloud"
	dial := r.dial
	if dial == nil {
		dial = pgx.ConnectConfig
	}
	conn, err := dial(ctx, cfg)
	if err != nil {
		return nil, connectError(t, err)
	}
	return conn, nil
}

// connectError explains a failed connection: a refused password, or an endpoint this machine
// cannot reach.
func connectError(t *loginTarget, err error) error {
	addr := net.JoinHostPort(t.host, strconv.Itoa(t.port))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000":
			return fmt.Errorf("the service refused admin_password for tsdbadmin at %s (%s, SQLSTATE %s). "+
				"Give the service's current tsdbadmin password: the one set with password or password_wo, or initial_password if none was set. "+
				"When this run rotates the password (a new password_wo_version), the service does not have the new one yet: "+
				"apply the service alone first (terraform apply -target=<the dbcloud_service>), then apply everything", addr, pgErr.Message, pgErr.Code)
		}
		return fmt.Errorf("connecting to %s as tsdbadmin: %s (SQLSTATE %s)", addr, pgErr.Message, pgErr.Code)
	}
	var tlsErr *tls.CertificateVerificationError
	if errors.As(err, &tlsErr) || strings.Contains(err.Error(), "x509:") || strings.Contains(err.Error(), "tls:") {
		return fmt.Errorf("the TLS certificate of %s could not be verified: %w. "+
			"Give the CA that signed it in ca_certificate (the host name is verified too)", addr, err)
	}
	return fmt.Errorf("cannot reach the service's endpoint %s from this machine: %w. "+
		"The machine that runs Terraform must reach the service's endpoint (network, firewall, VPC peering or a VPN); "+
		"run Terraform from a machine that can, or make the login elsewhere", addr, err)
}

// createLogin makes the login in one transaction and answers its expiry (the service's clock).
func (r *serviceCredentials) createLogin(ctx context.Context, t *loginTarget, spec loginSpec) (time.Time, error) {
	conn, err := r.connectAdmin(ctx, t)
	if err != nil {
		return time.Time{}, err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	tx, err := conn.Begin(ctx)
	if err != nil {
		return time.Time{}, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()

	var expires time.Time
	if err := tx.QueryRow(ctx, "SELECT date_trunc('second', now() + make_interval(secs => $1))", spec.ttl.Seconds()).Scan(&expires); err != nil {
		return time.Time{}, err
	}
	name := pgx.Identifier{t.login}.Sanitize()
	// The server gets the password's SCRAM verifier, never the password: nothing the server logs
	// (log_statement, an error quoting the statement) can show it.
	verifier, err := scramVerifier(t.loginPassword)
	if err != nil {
		return time.Time{}, err
	}
	pw := "'" + verifier + "'" // base64, $, : and digits only
	until := "'" + expires.UTC().Format("2006-01-02 15:04:05") + "+00'"
	var others []string
	inheritsAdmin := false
	for _, role := range spec.memberOf {
		if role == serviceDatabaseRole {
			inheritsAdmin = true
			continue
		}
		others = append(others, pgx.Identifier{role}.Sanitize())
	}
	var stmts []string
	if inheritsAdmin {
		// The service's way to make a read-only role that inherits tsdbadmin (api-facts).
		stmts = append(stmts,
			"SELECT timescale_functions.create_bare_readonly_role('"+t.login+"', "+pw+")",
			"SELECT timescale_functions.grant_tsdbadmin_to_role('"+t.login+"')",
			"ALTER ROLE "+name+" VALID UNTIL "+until)
		if len(others) > 0 {
			stmts = append(stmts, "GRANT "+strings.Join(others, ", ")+" TO "+name)
		}
	} else {
		create := "CREATE ROLE " + name + " WITH LOGIN PASSWORD " + pw + " VALID UNTIL " + until
		if len(others) > 0 {
			create += " IN ROLE " + strings.Join(others, ", ")
		}
		stmts = append(stmts, create)
	}
	if spec.readOnly {
		stmts = append(stmts, "ALTER ROLE "+name+" SET "+readOnlyRoleSetting+" = true")
	}
	if spec.statementTimeout > 0 {
		stmts = append(stmts, "ALTER ROLE "+name+" SET statement_timeout = "+strconv.FormatInt(max(spec.statementTimeout.Milliseconds(), 1), 10))
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return time.Time{}, statementError(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return time.Time{}, statementError(err)
	}
	return expires, nil
}

// statementError explains a refused statement (never quoting it: it holds the password).
func statementError(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case "42704": // undefined_object: a role of member_of
		return fmt.Errorf("member_of: %s (SQLSTATE %s). Every role in member_of must exist on the service: create it first "+
			"(for example with the PostgreSQL provider, in an earlier run) or correct the name", pgErr.Message, pgErr.Code)
	case "42501":
		return fmt.Errorf("tsdbadmin may not do this: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	case "42883", "3F000": // the service's timescale_functions are missing
		return fmt.Errorf("the service has no timescale_functions to make a read-only role that inherits tsdbadmin: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	return fmt.Errorf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
}

// ---- Close ----

const credentialsPrivateKey = "login"

type credentialsPrivate struct {
	Token     string `json:"token"`
	ServiceID string `json:"service_id"`
	Username  string `json:"username"`
	ExpiresAt string `json:"expires_at"`
}

func (r *serviceCredentials) Close(ctx context.Context, req ephemeral.CloseRequest, resp *ephemeral.CloseResponse) {
	b, d := req.Private.GetKey(ctx, credentialsPrivateKey)
	resp.Diagnostics.Append(d...)
	var p credentialsPrivate
	if len(b) == 0 || json.Unmarshal(b, &p) != nil {
		return
	}
	t := openLogins.take(p.Token)
	if t == nil {
		resp.Diagnostics.AddWarning("Login "+p.Username+" was not dropped",
			fmt.Sprintf("The provider no longer knows how to reach service %s to drop login %s; it stops working at %s.", p.ServiceID, p.Username, p.ExpiresAt))
		return
	}
	if t.adminPassword != "" {
		ctx = tflog.MaskMessageStrings(ctx, t.adminPassword, t.loginPassword)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := r.dropLogin(ctx, t); err != nil {
		resp.Diagnostics.AddWarning("Login "+p.Username+" was not dropped",
			fmt.Sprintf("Dropping login %s on service %s failed: %s\n\nIt stops working at %s anyway; drop it yourself (REASSIGN OWNED BY %s TO tsdbadmin; DROP OWNED BY %s; DROP ROLE %s) if it should go sooner.",
				p.Username, p.ServiceID, t.mask(err.Error()), p.ExpiresAt, p.Username, p.Username, p.Username))
		return
	}
	tflog.Info(ctx, "dbcloud_service_credentials: login dropped", map[string]any{"service_id": p.ServiceID, "username": p.Username})
}

// dropLogin ends the login's sessions, hands what it owns to tsdbadmin and drops it.
func (r *serviceCredentials) dropLogin(ctx context.Context, t *loginTarget) error {
	conn, err := r.connectAdmin(ctx, t)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	_, _ = conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", t.login)
	name := pgx.Identifier{t.login}.Sanitize()
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var exists, inheritsAdmin bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1),
			EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member JOIN pg_roles a ON a.oid = m.roleid
			         WHERE r.rolname = $1 AND a.rolname = $2)`, t.login, serviceDatabaseRole).Scan(&exists, &inheritsAdmin); err != nil {
			return err
		}
		if !exists {
			return nil
		}
		stmts := []string{}
		if inheritsAdmin {
			stmts = append(stmts, "REVOKE "+serviceDatabaseRole+" FROM "+name)
		}
		// REASSIGN OWNED and DROP OWNED need the login's privileges.
		stmts = append(stmts, "GRANT "+name+" TO "+serviceDatabaseRole,
			"REASSIGN OWNED BY "+name+" TO "+serviceDatabaseRole, "DROP OWNED BY "+name, "DROP ROLE "+name)
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return statementError(err)
			}
		}
		return nil
	})
}

// openLogins keeps what Close needs (the endpoint and the admin password) in the provider's memory,
// under a random token that Terraform's private data carries.
var openLogins = &loginRegistry{m: map[string]*loginTarget{}}

type loginRegistry struct {
	mu sync.Mutex
	m  map[string]*loginTarget
}

func (g *loginRegistry) add(t *loginTarget) string {
	token, _ := randomString("", "abcdefghijklmnopqrstuvwxyz0123456789", 24)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.m[token] = t
	return token
}

func (g *loginRegistry) take(token string) *loginTarget {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.m[token]
	delete(g.m, token)
	return t
}

// ---- values ----

// loginURI is the connection string of a login: its password percent-encoded.
func loginURI(host string, port int, user, password string) string {
	u := url.URL{Scheme: "postgresql", User: url.UserPassword(user, password), Host: net.JoinHostPort(host, strconv.Itoa(port)),
		Path: "/" + serviceDatabaseName, RawQuery: "sslmode=require"}
	return u.String()
}

// scramVerifier is PostgreSQL's SCRAM-SHA-256 secret of a password (RFC 5802, RFC 7677), in the
// form CREATE ROLE ... PASSWORD stores as it is: SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>.
// The password must need no SASLprep (ours are ASCII letters and digits).
func scramVerifier(password string) (string, error) {
	const iterations = 4096
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key"))), nil
}

// randomString is prefix and n characters drawn uniformly from alphabet (crypto/rand).
func randomString(prefix, alphabet string, n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	out := []byte(prefix)
	for _, c := range b {
		// 256 is not a multiple of every alphabet's length: draw again above the last full multiple.
		for int(c) >= 256-256%len(alphabet) {
			var one [1]byte
			if _, err := rand.Read(one[:]); err != nil {
				return "", err
			}
			c = one[0]
		}
		out = append(out, alphabet[int(c)%len(alphabet)])
	}
	return string(out), nil
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

// Package logins makes and drops the short-lived database logins of dbcloud_service_credentials on a
// service's PostgreSQL: it connects as tsdbadmin over TLS that verifies the server, creates a role
// with LOGIN, a random password (sent as its SCRAM verifier), VALID UNTIL now + ttl, the requested
// membership, read-only setting and statement timeout, in one transaction (api-facts: "Connecting to
// a service"), and drops it again after handing what it owns to tsdbadmin. Each login carries an
// owner marker (a comment on its role: the key of the configuration that asked for it, its expiry),
// by which a later run drops what an earlier one could not (DropLeftovers). It knows nothing of
// Terraform; the ephemeral resource in internal/provider is its only user.
package logins

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// AdminRole is the service's administrator, as whom logins are made and dropped.
	AdminRole = "tsdbadmin"
	// Database is the service's database.
	Database = "tsdb"
	// UserPrefix starts every generated login's name.
	UserPrefix = "tf_login_"
	// ReadOnlyRoleSetting is the role setting the service's extension enforces (api-facts).
	ReadOnlyRoleSetting = "tsdb_admin.read_only_role"
)

// Errors a caller may act on (errors.Is): the service refused the admin password, or a role of
// member_of does not exist. Both may be what the same Terraform run is about to change.
var (
	ErrAdminPasswordRefused = errors.New("admin password refused")
	ErrRoleMissing          = errors.New("member_of role missing")
)

type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == e.kind }

// Target is where and as whom logins are made, and the login being made.
type Target struct {
	Host          string
	Port          int
	TLS           *tls.Config
	AdminPassword string
	Login         string
	LoginPassword string
	// Dial connects; nil: pgx.ConnectConfig (tests replace it).
	Dial func(context.Context, *pgx.ConnConfig) (*pgx.Conn, error)
	// Service and Expires name the login in messages (set by the caller once it is made).
	Service string
	Expires time.Time
}

// NewTarget sets the TLS up for an endpoint: the server is verified against caPEM (when set) or
// the system's roots, with the endpoint's host name; a loopback endpoint (a local emulator)
// without caPEM is accepted without verification.
func NewTarget(host string, port int, caPEM string, loopback bool) (*Target, error) {
	cfg := &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}
	switch {
	case strings.TrimSpace(caPEM) != "":
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(caPEM)) {
			return nil, errors.New("ca_certificate holds no PEM certificate")
		}
		cfg.RootCAs = pool
	case loopback:
		cfg.InsecureSkipVerify = true //nolint:gosec // loopback only: a local emulator's self-signed certificate
	}
	return &Target{Host: host, Port: port, TLS: cfg}, nil
}

// NewLogin generates the login's name (recognisable: the prefix, then random) and its password.
func (t *Target) NewLogin() error {
	username, err := RandomString(UserPrefix, "abcdefghijklmnopqrstuvwxyz0123456789", 12)
	if err != nil {
		return err
	}
	pw, err := RandomString("", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 40)
	if err != nil {
		return err
	}
	t.Login, t.LoginPassword = username, pw
	return nil
}

// Mask removes the passwords from a text (an error message).
func (t *Target) Mask(s string) string {
	for _, secret := range []string{t.AdminPassword, t.LoginPassword} {
		if secret != "" {
			s = strings.ReplaceAll(s, secret, "(sensitive value)")
		}
	}
	return s
}

// Spec is what a login gets.
type Spec struct {
	TTL              time.Duration
	ReadOnly         bool
	MemberOf         []string // sorted
	StatementTimeout time.Duration
	// Key names the configuration that asks for the login (Marker): the next run of the same
	// configuration drops what an earlier one left (DropLeftovers). Empty: no marker.
	Key string
}

// markerPrefix starts the comment on every login this package makes (the owner marker).
const markerPrefix = "made by dbcloud_service_credentials: key="

// Marker is the comment a login carries: who made it, for which configuration (key) and until when.
// Key is hexadecimal and the time RFC 3339: nothing in it needs quoting.
func Marker(key string, expires time.Time) string {
	return markerPrefix + key + " expires=" + expires.UTC().Format(time.RFC3339)
}

// connectAdmin connects as tsdbadmin to tsdb over the target's TLS (no plain-text fallback).
func (t *Target) connectAdmin(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig("connect_timeout=20 sslmode=verify-full")
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Port = t.Host, uint16(t.Port)
	cfg.User, cfg.Password, cfg.Database = AdminRole, t.AdminPassword, Database
	cfg.TLSConfig = t.TLS
	cfg.Fallbacks = nil
	cfg.RuntimeParams["application_name"] = "terraform-provider-dbcloud"
	// The system's functions and operators only: a role that may create in a schema of the search
	// path (public, for an application role) could otherwise plant one that matches a call of ours
	// better, and it would run as tsdbadmin.
	cfg.RuntimeParams["search_path"] = "pg_catalog"
	dial := t.Dial
	if dial == nil {
		dial = pgx.ConnectConfig
	}
	conn, err := dial(ctx, cfg)
	if err != nil {
		return nil, t.connectError(err)
	}
	return conn, nil
}

// connectError explains a failed connection: a refused password, or an endpoint this machine
// cannot reach.
func (t *Target) connectError(err error) error {
	addr := net.JoinHostPort(t.Host, strconv.Itoa(t.Port))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000":
			return &kindError{ErrAdminPasswordRefused, fmt.Sprintf("the service refused admin_password for tsdbadmin at %s (%s, SQLSTATE %s). "+
				"Give the service's current tsdbadmin password: the one set with password or password_wo, or initial_password if none was set",
				addr, pgErr.Message, pgErr.Code)}
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

// Create makes the login in one transaction and answers its expiry (the service's clock).
func (t *Target) Create(ctx context.Context, spec Spec) (time.Time, error) {
	conn, err := t.connectAdmin(ctx)
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
	if err := tx.QueryRow(ctx, "SELECT date_trunc('second', now() + make_interval(secs => $1))", spec.TTL.Seconds()).Scan(&expires); err != nil {
		return time.Time{}, err
	}
	stmts, err := t.roleSQL(spec, expires)
	if err != nil {
		return time.Time{}, err
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

// roleSQL is the statements that make the login. The server gets the password's SCRAM verifier,
// never the password: nothing the server logs (log_statement, an error quoting the statement) can
// show it.
func (t *Target) roleSQL(spec Spec, expires time.Time) ([]string, error) {
	name := pgx.Identifier{t.Login}.Sanitize()
	verifier, err := SCRAMVerifier(t.LoginPassword)
	if err != nil {
		return nil, err
	}
	pw := "'" + verifier + "'" // base64, $, : and digits only
	until := "'" + expires.UTC().Format("2006-01-02 15:04:05") + "+00'"
	var others []string
	inheritsAdmin := false
	for _, role := range spec.MemberOf {
		if role == AdminRole {
			inheritsAdmin = true
			continue
		}
		others = append(others, pgx.Identifier{role}.Sanitize())
	}
	var stmts []string
	if inheritsAdmin {
		// The service's way to make a read-only role that inherits tsdbadmin (api-facts).
		stmts = append(stmts,
			"SELECT timescale_functions.create_bare_readonly_role('"+t.Login+"', "+pw+")",
			"SELECT timescale_functions.grant_tsdbadmin_to_role('"+t.Login+"')",
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
	if spec.ReadOnly {
		stmts = append(stmts, "ALTER ROLE "+name+" SET "+ReadOnlyRoleSetting+" = true")
	}
	if spec.StatementTimeout > 0 {
		stmts = append(stmts, "ALTER ROLE "+name+" SET statement_timeout = "+strconv.FormatInt(max(spec.StatementTimeout.Milliseconds(), 1), 10))
	}
	if spec.Key != "" {
		stmts = append(stmts, "COMMENT ON ROLE "+name+" IS '"+Marker(spec.Key, expires)+"'")
	}
	return stmts, nil
}

// statementError explains a refused statement (never quoting it: it holds the password).
func statementError(err error) error {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return err
	}
	switch pgErr.Code {
	case "42704": // undefined_object: a role of member_of
		return &kindError{ErrRoleMissing, fmt.Sprintf("member_of: %s (SQLSTATE %s). Every role in member_of must exist on the service: "+
			"create it first (in the same configuration: reference the resource that makes it, so that the login waits for it) or correct the name",
			pgErr.Message, pgErr.Code)}
	case "42501":
		return fmt.Errorf("tsdbadmin may not do this: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	case "42883", "3F000": // the service's timescale_functions are missing
		return fmt.Errorf("the service has no timescale_functions to make a read-only role that inherits tsdbadmin: %s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
	}
	return fmt.Errorf("%s (SQLSTATE %s)", pgErr.Message, pgErr.Code)
}

// Drop ends the login's sessions, hands what it owns to tsdbadmin and drops it. A login that is
// gone already is not an error.
func (t *Target) Drop(ctx context.Context) error {
	conn, err := t.connectAdmin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	_, _ = conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", t.Login)
	name := pgx.Identifier{t.Login}.Sanitize()
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		var exists, inheritsAdmin bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1),
			EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member JOIN pg_roles a ON a.oid = m.roleid
			         WHERE r.rolname = $1 AND a.rolname = $2)`, t.Login, AdminRole).Scan(&exists, &inheritsAdmin); err != nil {
			return err
		}
		if !exists {
			return nil
		}
		stmts := []string{}
		if inheritsAdmin {
			stmts = append(stmts, "REVOKE "+AdminRole+" FROM "+name)
		}
		// REASSIGN OWNED and DROP OWNED need the login's privileges.
		stmts = append(stmts, "GRANT "+name+" TO "+AdminRole,
			"REASSIGN OWNED BY "+name+" TO "+AdminRole, "DROP OWNED BY "+name, "DROP ROLE "+name)
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return statementError(err)
			}
		}
		return nil
	})
}

// Leftover is a login an earlier run left: dropped now, or not (Err says why).
type Leftover struct {
	Login, Expires string
	// Expired: its VALID UNTIL had passed when it was found (by the service's clock): it had
	// stopped working already.
	Expired bool
	Err     error
}

// DropLeftovers drops the logins that carry the marker of key (made for the same configuration)
// and that keep does not claim (open in this process): an earlier run left them, for example when
// Terraform skipped their close after an error, or the endpoint was down then. It answers each
// one found, dropped or not.
func (t *Target) DropLeftovers(ctx context.Context, key string, keep func(login string) bool) ([]Leftover, error) {
	conn, err := t.connectAdmin(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := conn.Query(ctx, `SELECT rolname, substring(shobj_description(oid, 'pg_authid') from ' expires=(.*)$'),
		       coalesce(rolvaliduntil <= now(), false)
		FROM pg_roles WHERE rolname LIKE $1 AND shobj_description(oid, 'pg_authid') LIKE $2 ORDER BY rolname`,
		strings.ReplaceAll(UserPrefix, "_", `\_`)+"%", markerPrefix+key+" %")
	var found []Leftover
	if err == nil {
		for rows.Next() {
			var l Leftover
			if err := rows.Scan(&l.Login, &l.Expires, &l.Expired); err == nil && !keep(l.Login) && l.Login != t.Login {
				found = append(found, l)
			}
		}
		err = rows.Err()
	}
	_ = conn.Close(context.WithoutCancel(ctx))
	if err != nil {
		return nil, err
	}
	for i := range found {
		other := *t
		other.Login = found[i].Login
		found[i].Err = other.Drop(ctx)
	}
	return found, nil
}

// WithUser is uri (a connection string of the service, without a password) for user with
// password, the password percent-encoded.
func WithUser(uri, user, password string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	u.User = url.UserPassword(user, password)
	return u.String(), nil
}

// Registry keeps what Close needs (the endpoint and the admin password) in the provider's memory,
// under a random token that Terraform's private data carries.
type Registry struct {
	mu sync.Mutex
	m  map[string]*Target
}

// Add keeps t and answers its token.
func (g *Registry) Add(t *Target) string {
	token, _ := RandomString("", "abcdefghijklmnopqrstuvwxyz0123456789", 24)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]*Target{}
	}
	g.m[token] = t
	return token
}

// TakeAll answers every target and forgets them.
func (g *Registry) TakeAll() map[string]*Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	all := g.m
	g.m = nil
	return all
}

// Holds says whether a target of the registry is login.
func (g *Registry) Holds(login string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.m {
		if t.Login == login {
			return true
		}
	}
	return false
}

// Take answers the target of token and forgets it (nil if unknown).
func (g *Registry) Take(token string) *Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.m[token]
	delete(g.m, token)
	return t
}

package pgbackend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ServiceOptions are the options of CreateService.
type ServiceOptions struct {
	// TimescaleDB creates the timescaledb extension in the service's database when the cluster has
	// it; otherwise the service gets a note that the extension is emulated.
	TimescaleDB bool
}

// Service is where a service's database is and how to log in to it.
type Service struct {
	Host     string
	Port     int
	Database string
	User     string
	// Note says what is emulated rather than real (empty when nothing is).
	Note string
}

// NoteTimescaleEmulated is the note of a time-series service on a cluster without timescaledb.
const NoteTimescaleEmulated = "timescaledb extension not installed on this machine: the time-series addon is emulated (plain PostgreSQL)"

// ReadOnlyUser is the login role of a service's read-only stand-in for replicas.
func ReadOnlyUser(id string) string { return id + roSuffix }

func (c *Cluster) service(id, note string) Service {
	return Service{Host: c.host, Port: c.port, Database: id, User: id, Note: note}
}

// exec runs admin statements one by one (the caller holds c.mu).
func (c *Cluster) exec(ctx context.Context, stmts ...string) error {
	if c.closed {
		return errors.New("pgbackend: cluster closed")
	}
	for _, s := range stmts {
		if _, err := c.admin.Exec(ctx, s); err != nil {
			return fmt.Errorf("pgbackend: %w", err)
		}
	}
	return nil
}

// inDatabase runs statements as the superuser connected to database db.
func (c *Cluster) inDatabase(ctx context.Context, db string, stmts ...string) error {
	conn, err := c.connect(ctx, superuser, c.superPW, db)
	if err != nil {
		return fmt.Errorf("pgbackend: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("pgbackend: %w", err)
		}
	}
	return nil
}

// CreateService creates a login role and a database owned by it, both named id, with password.
// Only that role (and later its read-only role) may connect to the database.
func (c *Cluster) CreateService(ctx context.Context, id, password string, opts ServiceOptions) (Service, error) {
	if err := checkID(id); err != nil {
		return Service{}, err
	}
	pw, err := literal(password)
	if err != nil {
		return Service{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.exec(ctx,
		fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD %s", ident(id), pw),
		fmt.Sprintf("CREATE DATABASE %s OWNER %s", ident(id), ident(id)),
		fmt.Sprintf("REVOKE ALL ON DATABASE %s FROM PUBLIC", ident(id)),
	); err != nil {
		return Service{}, err
	}
	note := ""
	if opts.TimescaleDB {
		note = NoteTimescaleEmulated
		if c.timescale {
			if err := c.inDatabase(ctx, id, "CREATE EXTENSION IF NOT EXISTS timescaledb"); err != nil {
				note = "timescaledb extension could not be created, the time-series addon is emulated: " + err.Error()
			} else {
				note = ""
			}
		}
	}
	return c.service(id, note), nil
}

// SetPassword changes the password of the service's role (and of its read-only role if any).
// The old password stops working for new logins.
func (c *Cluster) SetPassword(ctx context.Context, id, password string) error {
	if err := checkID(id); err != nil {
		return err
	}
	pw, err := literal(password)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.exec(ctx, fmt.Sprintf("ALTER ROLE %s PASSWORD %s", ident(id), pw)); err != nil {
		return err
	}
	if ok, err := c.roleExists(ctx, ReadOnlyUser(id)); err != nil || !ok {
		return err
	}
	return c.exec(ctx, fmt.Sprintf("ALTER ROLE %s PASSWORD %s", ident(ReadOnlyUser(id)), pw))
}

// SetLogin allows or refuses logins of the service's roles. Refusing (a paused service) also ends
// the sessions open on its database.
func (c *Cluster) SetLogin(ctx context.Context, id string, allowed bool) error {
	if err := checkID(id); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	login := "LOGIN"
	if !allowed {
		login = "NOLOGIN"
	}
	roles := []string{id}
	if ok, err := c.roleExists(ctx, ReadOnlyUser(id)); err != nil {
		return err
	} else if ok {
		roles = append(roles, ReadOnlyUser(id))
	}
	for _, r := range roles {
		if err := c.exec(ctx, fmt.Sprintf("ALTER ROLE %s %s", ident(r), login)); err != nil {
			return err
		}
	}
	if !allowed {
		return c.terminate(ctx, id)
	}
	return nil
}

// terminate ends every session on the database id and waits until they are gone (the caller
// holds c.mu).
func (c *Cluster) terminate(ctx context.Context, id string) error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		var left int
		err := c.admin.QueryRow(ctx,
			`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
			id).Scan(&left)
		if err != nil {
			return fmt.Errorf("pgbackend: %w", err)
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("pgbackend: sessions on %s did not end", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Fork creates the service newID (role and database, password newPassword) whose database is a
// copy of srcID's: CREATE DATABASE ... TEMPLATE, after ending the sessions on the source (the
// source refuses new sessions while it is copied). Objects owned by the source's role belong to
// the new role in the copy.
func (c *Cluster) Fork(ctx context.Context, srcID, newID, newPassword string) (Service, error) {
	if err := errors.Join(checkID(srcID), checkID(newID)); err != nil {
		return Service{}, err
	}
	pw, err := literal(newPassword)
	if err != nil {
		return Service{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD %s", ident(newID), pw)); err != nil {
		return Service{}, err
	}
	if err := c.exec(ctx, fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS false", ident(srcID))); err != nil {
		return Service{}, err
	}
	copyErr := c.terminate(ctx, srcID)
	if copyErr == nil {
		copyErr = c.exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s OWNER %s", ident(newID), ident(srcID), ident(newID)))
	}
	if err := c.exec(context.WithoutCancel(ctx), fmt.Sprintf("ALTER DATABASE %s ALLOW_CONNECTIONS true", ident(srcID))); err != nil && copyErr == nil {
		copyErr = err
	}
	if copyErr != nil {
		return Service{}, copyErr
	}
	// REASSIGN OWNED also hands over shared objects, the source database among them: give it back.
	if err := c.inDatabase(ctx, newID,
		fmt.Sprintf("REASSIGN OWNED BY %s TO %s", ident(srcID), ident(newID)),
		fmt.Sprintf("ALTER DATABASE %s OWNER TO %s", ident(srcID), ident(srcID)),
		fmt.Sprintf("REVOKE ALL ON DATABASE %s FROM PUBLIC", ident(newID)),
	); err != nil {
		return Service{}, err
	}
	return c.service(newID, ""), nil
}

// ReadOnlyRole creates (or updates) the read-only role of a service, ReadOnlyUser(id), with
// password: it may log in to the service's database, read everything and write nothing
// (default_transaction_read_only and only pg_read_all_data's privileges). This is how read replica
// sets and HA replicas are emulated: they see the primary's data at once, with no replication lag.
func (c *Cluster) ReadOnlyRole(ctx context.Context, id, password string) (Service, error) {
	if err := checkID(id); err != nil {
		return Service{}, err
	}
	pw, err := literal(password)
	if err != nil {
		return Service{}, err
	}
	ro := ident(ReadOnlyUser(id))
	c.mu.Lock()
	defer c.mu.Unlock()
	exists, err := c.roleExists(ctx, ReadOnlyUser(id))
	if err != nil {
		return Service{}, err
	}
	if !exists {
		if err := c.exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD %s IN ROLE pg_read_all_data", ro, pw)); err != nil {
			return Service{}, err
		}
	}
	if err := c.exec(ctx,
		fmt.Sprintf("ALTER ROLE %s PASSWORD %s", ro, pw),
		fmt.Sprintf("ALTER ROLE %s SET default_transaction_read_only = on", ro),
		fmt.Sprintf("GRANT CONNECT ON DATABASE %s TO %s", ident(id), ro),
	); err != nil {
		return Service{}, err
	}
	s := c.service(id, "read-only role on the primary's database: replicas are emulated")
	s.User = ReadOnlyUser(id)
	return s, nil
}

// Drop ends the sessions on a service's database and drops it and the service's roles. Dropping
// what does not exist is not an error.
func (c *Cluster) Drop(ctx context.Context, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exec(ctx,
		fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", ident(id)),
		fmt.Sprintf("DROP ROLE IF EXISTS %s", ident(ReadOnlyUser(id))),
		fmt.Sprintf("DROP ROLE IF EXISTS %s", ident(id)),
	)
}

// Ready reports whether the service's role can log in to its database with password.
func (c *Cluster) Ready(ctx context.Context, id, password string) bool {
	if checkID(id) != nil {
		return false
	}
	conn, err := c.Connect(ctx, id, password)
	if err != nil {
		return false
	}
	_ = conn.Close(ctx)
	return true
}

// Connect logs in to the service's database as its role.
func (c *Cluster) Connect(ctx context.Context, id, password string) (*pgx.Conn, error) {
	return c.connect(ctx, id, password, id)
}

// DatabaseExists reports whether the service's database exists.
func (c *Cluster) DatabaseExists(ctx context.Context, id string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exists(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, id)
}

func (c *Cluster) roleExists(ctx context.Context, role string) (bool, error) {
	return c.exists(ctx, `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, role)
}

func (c *Cluster) exists(ctx context.Context, query, arg string) (bool, error) {
	if c.closed {
		return false, errors.New("pgbackend: cluster closed")
	}
	var ok bool
	if err := c.admin.QueryRow(ctx, query, arg).Scan(&ok); err != nil {
		return false, fmt.Errorf("pgbackend: %w", err)
	}
	return ok, nil
}

package pgbackend

import (
	"context"
	"fmt"
)

// Read-only logins and sessions, as the real service makes them.
//
// The real service enforces read-only sessions with its own extension; every instance here loads
// an equivalent (tsdbadmin/tsdb_admin.c, built by extension.go, loaded into every backend with
// session_preload_libraries):
//
//   - A session is read-only when it was opened with tsdb_admin.read_only_connection = true (the
//     vendor's connection option; the parameter can only be set at connection start, so SET
//     refuses it) or when its role's stored settings (ALTER ROLE ... SET) hold
//     tsdb_admin.read_only_role = true. That is decided once, when the session starts, and kept in
//     the backend's memory: SET, RESET ALL, SET ROLE, SET SESSION AUTHORIZATION, set_config or a
//     startup option of the client change nothing.
//   - In such a session every statement and every function call (also a fast-path call, as
//     libpq's large-object functions make) runs in a read-only transaction, so PostgreSQL itself
//     refuses INSERT, UPDATE, DELETE, TRUNCATE, COPY ... FROM, every DDL (also CREATE TEMP TABLE and
//     CREATE EXTENSION), CREATE/ALTER/DROP ROLE, CREATE DATABASE, GRANT, nextval and setval, and
//     the large-object functions that write, also inside SECURITY DEFINER functions and after SET
//     ROLE. BEGIN/START TRANSACTION READ WRITE, SET TRANSACTION READ WRITE, SET SESSION
//     CHARACTERISTICS AS TRANSACTION READ WRITE and turning transaction_read_only or
//     default_transaction_read_only off are refused at once. Every such error (SQLSTATE 25006)
//     carries a hint naming what made the session read-only.
//   - tsdbadmin may set tsdb_admin.read_only_role on roles (GRANT SET ON PARAMETER: a role that is
//     not a superuser needs it to store the parameter with ALTER ROLE); a read-only login cannot
//     take the flag off (ALTER ROLE is refused in its session).
//   - timescale_functions.create_bare_readonly_role and grant_tsdbadmin_to_role make a read-only
//     role that inherits tsdbadmin, as on the live service: it reads what tsdbadmin reads and, its
//     sessions being read-only, writes nothing, even after SET ROLE tsdbadmin.
//
//   - What PostgreSQL itself allows in a read-only transaction stays allowed, as PostgreSQL has it
//     (what the live service does with these is not known): VACUUM (FULL), ANALYZE, CLUSTER,
//     REINDEX, LOCK ... ACCESS EXCLUSIVE (readers wait too), NOTIFY, pg_logical_emit_message,
//     advisory locks, pg_terminate_backend and pg_cancel_backend, each with the session's
//     privileges: a read-only login on what its roles own and its own sessions; a session that is
//     tsdbadmin or inherits it (a read_only_connection session, a read-only login with member_of
//     tsdbadmin) on every table of tsdb for VACUUM and ANALYZE, system catalogs included, REINDEX
//     SCHEMA, SYSTEM and DATABASE (tsdbadmin owns the database), and on every session but the
//     superuser's (tsdbadmin is in pg_signal_backend).
//
// What no session may do, read-only or not (programs, server files, other services), is the
// lockdown's (lockdown.go). Expiry (VALID UNTIL) and dropped roles are PostgreSQL's own checks.
// TestReadOnlyEscapes tries every path out; TestReadOnlyStillAllowed what stays allowed (row by
// row, for each kind of session, with its effect), and that no login reads a password verifier
// (the pooler's auth function answers tsdb_pooler_auth only).

// ReadOnlyRoleSetting is the role setting that makes a role's logins read-only.
const ReadOnlyRoleSetting = "tsdb_admin.read_only_role"

// readOnlySetup is run in tsdb of the template (as the bootstrap superuser).
var readOnlySetup = append([]string{
	`GRANT SET ON PARAMETER ` + ReadOnlyRoleSetting + ` TO ` + AdminUser,
	`CREATE SCHEMA timescale_functions`,
	`GRANT USAGE ON SCHEMA timescale_functions TO PUBLIC`,
}, readOnlyFunctions...)

// readOnlyFunctions are the vendor's functions for a read-only role that inherits tsdbadmin, and
// the pooler's auth_query function; every statement may run again.
var readOnlyFunctions = []string{
	`CREATE OR REPLACE FUNCTION timescale_functions.create_bare_readonly_role(role_name text, password text) RETURNS void
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	BEGIN
	  EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', role_name, password);
	  EXECUTE format('ALTER ROLE %I SET ` + ReadOnlyRoleSetting + ` = true', role_name);
	END $$`,
	`CREATE OR REPLACE FUNCTION timescale_functions.grant_tsdbadmin_to_role(role_name text) RETURNS void
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	BEGIN
	  IF NOT EXISTS (SELECT 1 FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole, unnest(s.setconfig) AS c(item)
	                  WHERE r.rolname = role_name AND s.setdatabase = 0
	                    AND lower(c.item) IN ('` + ReadOnlyRoleSetting + `=true', '` + ReadOnlyRoleSetting + `=on')) THEN
	    RAISE EXCEPTION 'role "%" is not a read-only role made by create_bare_readonly_role', role_name
	      USING ERRCODE = '42501';
	  END IF;
	  EXECUTE format('GRANT ` + AdminUser + ` TO %I', role_name);
	END $$`,
	`REVOKE ALL ON FUNCTION timescale_functions.create_bare_readonly_role(text, text), timescale_functions.grant_tsdbadmin_to_role(text) FROM PUBLIC`,
	`GRANT EXECUTE ON FUNCTION timescale_functions.create_bare_readonly_role(text, text), timescale_functions.grant_tsdbadmin_to_role(text) TO ` + AdminUser,
	poolerAuthFunction,
	// The pooler's auth user only: granted to tsdbadmin, every member of it (a read-only login
	// inheriting tsdbadmin) could read every role's password verifier.
	`DO $$ BEGIN CREATE ROLE ` + poolerAuthUser + ` LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
	`ALTER ROLE ` + poolerAuthUser + ` LOGIN PASSWORD NULL`,
	`REVOKE ALL ON FUNCTION timescale_functions.pooler_auth(text) FROM PUBLIC, ` + AdminUser,
	`GRANT EXECUTE ON FUNCTION timescale_functions.pooler_auth(text) TO ` + poolerAuthUser,
}

// poolerAuthUser is the role PgBouncer runs auth_query as: it logs in over the instance's private
// socket only (no password: no TCP login), and PgBouncer's clients would need the random password
// of its auth_file. No other role may call pooler_auth.
const poolerAuthUser = "tsdb_pooler_auth"

// poolerAuthFunction answers PgBouncer's auth_query (as poolerAuthUser): the SCRAM secret of a role
// that may log in now, so that the pooler authenticates every login role of the database, as the
// live one does. Only to a session that logged in as poolerAuthUser (session_user, which SET ROLE
// does not change): tsdbadmin has CREATEROLE and may make itself a member of that role.
const poolerAuthFunction = `CREATE OR REPLACE FUNCTION timescale_functions.pooler_auth(user_name text, OUT usename name, OUT passwd text)
	RETURNS record LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
	SELECT rolname, rolpassword FROM pg_authid
	 WHERE rolname = user_name AND rolcanlogin AND NOT rolsuper
	   AND (rolvaliduntil IS NULL OR rolvaliduntil > now())
	   AND session_user = '` + poolerAuthUser + `'
	$$`

// readOnlyUpgrade brings an instance made by an older emulator up to date: it drops the triggers
// and event triggers that enforced read-only sessions before the extension did (and the
// functions and table they used), gives the large-object functions back to PUBLIC, and replaces
// the vendor's functions.
var readOnlyUpgrade = append([]string{
	`DROP EVENT TRIGGER IF EXISTS tsdb_admin_read_only_ddl`,
	`DROP EVENT TRIGGER IF EXISTS tsdb_admin_read_only_tables`,
	`DROP FUNCTION IF EXISTS timescale_functions.refuse_write() CASCADE`,
	`DROP FUNCTION IF EXISTS timescale_functions.refuse_ddl(), timescale_functions.guard_new_tables(),
	  timescale_functions.read_only_hint(), timescale_functions.is_read_only_session()`,
	`DROP TABLE IF EXISTS timescale_functions.read_only_roles`,
	`GRANT EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea), lo_put(oid, bigint, bytea),
	  lowrite(integer, bytea), lo_truncate(integer, integer), lo_truncate64(integer, bigint), lo_unlink(oid) TO PUBLIC`,
}, readOnlyFunctions...)

// ensureReadOnlySetup sets tsdb up unless it is current (an instance whose data was kept from an
// older emulator).
func (in *Instance) ensureReadOnlySetup(ctx context.Context) error {
	conn, err := in.connectLocal(ctx, Database)
	if err != nil {
		return fmt.Errorf("pgbackend: %s: %w", in.name, err)
	}
	var there, current bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'timescale_functions'),
		EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'pooler_auth')
		AND NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'pooler_auth' AND has_function_privilege('`+AdminUser+`', oid, 'EXECUTE'))
		AND EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'pooler_auth' AND prosrc LIKE '%session_user%')
		AND CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '`+poolerAuthUser+`')
		    THEN has_function_privilege('`+poolerAuthUser+`', 'timescale_functions.pooler_auth(text)', 'EXECUTE') ELSE false END
		AND NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname LIKE 'tsdb_admin_read_only%')
		AND NOT EXISTS (SELECT 1 FROM pg_proc WHERE proname IN ('refuse_write', 'is_read_only_session'))`).Scan(&there, &current)
	_ = conn.Close(context.WithoutCancel(ctx))
	if err != nil {
		return fmt.Errorf("pgbackend: %s: %w", in.name, err)
	}
	if there && current {
		return nil
	}
	if there {
		return in.admin(ctx, Database, readOnlyUpgrade...)
	}
	return in.admin(ctx, Database, readOnlySetup...)
}

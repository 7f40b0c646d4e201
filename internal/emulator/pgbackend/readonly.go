package pgbackend

import (
	"context"
	"fmt"
)

// Read-only logins, as the real service makes them.
//
// The real service marks a role read-only with `ALTER ROLE name SET tsdb_admin.read_only_role = true`
// (its own extension enforces it) and offers timescale_functions.create_bare_readonly_role and
// grant_tsdbadmin_to_role for a read-only role that inherits tsdbadmin. Plain PostgreSQL has no
// such extension, so every instance gets an equivalent made of SQL alone (set up once, in the
// template's database tsdb, as the bootstrap superuser):
//
//   - tsdbadmin may set the custom parameter tsdb_admin.read_only_role on roles (GRANT SET ON
//     PARAMETER): without it a role that is not a superuser cannot store a custom parameter with
//     ALTER ROLE. A login without that grant cannot remove the flag from itself.
//   - A session is read-only when its session user's stored settings (pg_db_role_setting, which the
//     session cannot change) hold tsdb_admin.read_only_role = true, when the session user was made by
//     create_bare_readonly_role, or when the session was opened with
//     tsdb_admin.read_only_connection = true (the vendor's connection option): the value of the
//     startup packet counts, which RESET gives back, so SET, set_config and RESET ALL change nothing.
//     SET ROLE does not change the session user; SET SESSION AUTHORIZATION needs a superuser.
//   - Every table gets a statement-level trigger (added by an event trigger when the table is
//     created; not the tables an extension's script makes) that refuses INSERT, UPDATE, DELETE,
//     TRUNCATE and COPY ... FROM in a read-only session with SQLSTATE 25006, as a read-only
//     transaction would, also through a SECURITY DEFINER function; an event trigger refuses every DDL
//     command (CREATE, ALTER, DROP, GRANT on objects, CREATE EXTENSION, ...) in such a session.
//     Neither depends on default_transaction_read_only or transaction_read_only, so turning those
//     off changes nothing. Disabling the triggers needs DDL (refused) or session_replication_role
//     (superuser only).
//   - A role made read-only by the login itself cannot take the flag off (ALTER ROLE ... RESET needs
//     the SET privilege on the parameter, which only tsdbadmin has).
//   - PostgreSQL 15 cannot grant a role without the right to SET ROLE to it, and a member of
//     tsdbadmin could use its CREATEROLE and CREATEDB that way: grant_tsdbadmin_to_role grants
//     pg_read_all_data instead (it reads what tsdbadmin reads, and gives no privilege to write).
//   - Only tsdbadmin may call the functions that write large objects.
//
// Not closed (plain PostgreSQL 15 runs no hook for them, and a session may always turn
// transaction_read_only off; the real extension refuses them): in a session of tsdbadmin opened
// with tsdb_admin.read_only_connection, role and database statements (CREATE/ALTER/DROP ROLE,
// CREATE DATABASE, GRANT of a role), large objects and sequence functions (nextval, setval); for a
// read-only login, nextval and setval on sequences its roles own or may use. Expiry (VALID UNTIL)
// and dropped roles are PostgreSQL's own checks. TestReadOnlyEscapes tries every path.

// ReadOnlyRoleSetting is the role setting that makes a role's logins read-only.
const ReadOnlyRoleSetting = "tsdb_admin.read_only_role"

// readOnlySetup is run in tsdb of the template (as the bootstrap superuser).
var readOnlySetup = []string{
	`GRANT SET ON PARAMETER ` + ReadOnlyRoleSetting + ` TO ` + AdminUser,
	`CREATE SCHEMA timescale_functions`,
	`GRANT USAGE ON SCHEMA timescale_functions TO PUBLIC`,
	`CREATE TABLE timescale_functions.read_only_roles (roleid oid PRIMARY KEY)`,
	`REVOKE ALL ON timescale_functions.read_only_roles FROM PUBLIC`,

	isReadOnlySession,

	readOnlyHint,
	refuseWrite,
	refuseDDL,

	`CREATE FUNCTION timescale_functions.guard_new_tables() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	DECLARE r record;
	BEGIN
	  FOR r IN SELECT DISTINCT c.oid FROM pg_event_trigger_ddl_commands() d JOIN pg_class c ON c.oid = d.objid
	            WHERE d.classid = 'pg_class'::regclass AND c.relkind IN ('r', 'p') AND NOT d.in_extension
	              AND NOT EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = 'tsdb_admin_read_only')
	  LOOP
	    EXECUTE format('CREATE TRIGGER tsdb_admin_read_only BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s '
	                   'FOR EACH STATEMENT EXECUTE FUNCTION timescale_functions.refuse_write()', r.oid::regclass);
	  END LOOP;
	END $$`,

	`CREATE EVENT TRIGGER tsdb_admin_read_only_ddl ON ddl_command_start
	EXECUTE FUNCTION timescale_functions.refuse_ddl()`,
	`CREATE EVENT TRIGGER tsdb_admin_read_only_tables ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO')
	EXECUTE FUNCTION timescale_functions.guard_new_tables()`,

	// The vendor's functions for a read-only role that inherits tsdbadmin.
	`CREATE FUNCTION timescale_functions.create_bare_readonly_role(role_name text, password text) RETURNS void
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	BEGIN
	  IF timescale_functions.is_read_only_session() THEN
	    RAISE EXCEPTION 'cannot execute CREATE ROLE in a read-only transaction' USING ERRCODE = '25006';
	  END IF;
	  EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', role_name, password);
	  EXECUTE format('ALTER ROLE %I SET ` + ReadOnlyRoleSetting + ` = true', role_name);
	  INSERT INTO timescale_functions.read_only_roles SELECT oid FROM pg_roles WHERE rolname = role_name;
	END $$`,
	grantTsdbadminToRole,
	`REVOKE ALL ON FUNCTION timescale_functions.create_bare_readonly_role(text, text), timescale_functions.grant_tsdbadmin_to_role(text) FROM PUBLIC`,
	`GRANT EXECUTE ON FUNCTION timescale_functions.create_bare_readonly_role(text, text), timescale_functions.grant_tsdbadmin_to_role(text) TO ` + AdminUser,
	// Large objects are written by functions, not through a table's triggers: only tsdbadmin
	// (not a role that inherits it: those inherit pg_read_all_data) may call the writing ones.
	`REVOKE EXECUTE ON FUNCTION ` + largeObjectWriters + ` FROM PUBLIC`,
	`GRANT EXECUTE ON FUNCTION ` + largeObjectWriters + ` TO ` + AdminUser,
	poolerAuthFunction,
	`REVOKE ALL ON FUNCTION timescale_functions.pooler_auth(text) FROM PUBLIC`,
	`GRANT EXECUTE ON FUNCTION timescale_functions.pooler_auth(text) TO ` + AdminUser,
}

// isReadOnlySession decides whether the session is read-only. The connection option counts as the
// session was opened with it: RESET gives back the value of the startup packet (a SET, RESET ALL
// or set_config made later cannot change that), and the function puts the session's current value
// back. The role's flag is read from the catalog (pg_db_role_setting), which the login cannot
// change, for the session user, which SET ROLE does not change (SET SESSION AUTHORIZATION needs a
// superuser).
var isReadOnlySession = `CREATE OR REPLACE FUNCTION timescale_functions.is_read_only_session() RETURNS boolean
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog AS $$
	DECLARE
	  now_value text := current_setting('` + ReadOnlyOption + `', true);
	  opened_with text;
	BEGIN
	  RESET ` + ReadOnlyOption + `;
	  opened_with := current_setting('` + ReadOnlyOption + `', true);
	  PERFORM set_config('` + ReadOnlyOption + `', coalesce(now_value, 'off'), false);
	  RETURN lower(coalesce(opened_with, 'off')) IN ('on', 'true', 'yes', '1')
	    OR EXISTS (
	       SELECT 1 FROM pg_db_role_setting s, unnest(s.setconfig) AS c(item)
	        WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = session_user)
	          AND s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
	          AND lower(c.item) IN ('` + ReadOnlyRoleSetting + `=true', '` + ReadOnlyRoleSetting + `=on',
	                                '` + ReadOnlyRoleSetting + `=yes', '` + ReadOnlyRoleSetting + `=1'))
	    OR EXISTS (
	       SELECT 1 FROM timescale_functions.read_only_roles
	        WHERE roleid = (SELECT oid FROM pg_roles WHERE rolname = session_user));
	END $$`

// readOnlyHint names the setting that makes the session read-only: the connection option (the
// session was opened with it) or the role's flag.
var readOnlyHint = `CREATE OR REPLACE FUNCTION timescale_functions.read_only_hint() RETURNS text
	LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog AS $$
	DECLARE
	  now_value text := current_setting('` + ReadOnlyOption + `', true);
	  opened_with text;
	BEGIN
	  RESET ` + ReadOnlyOption + `;
	  opened_with := current_setting('` + ReadOnlyOption + `', true);
	  PERFORM set_config('` + ReadOnlyOption + `', coalesce(now_value, 'off'), false);
	  IF lower(coalesce(opened_with, 'off')) IN ('on', 'true', 'yes', '1') THEN
	    RETURN 'This session was opened with ` + ReadOnlyOption + ` = true (read_only_connection_uri): it stays read-only; connect without the option to write.';
	  END IF;
	  RETURN 'This login is read-only (` + ReadOnlyRoleSetting + `): use a login that is not read-only to write.';
	END $$`

// refuseWrite is the tables' trigger function; refuseDDL the event trigger's.
var refuseWrite = `CREATE OR REPLACE FUNCTION timescale_functions.refuse_write() RETURNS trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	BEGIN
	  IF timescale_functions.is_read_only_session() THEN
	    RAISE EXCEPTION 'cannot execute % in a read-only transaction', TG_OP
	      USING ERRCODE = '25006', HINT = timescale_functions.read_only_hint();
	  END IF;
	  RETURN NULL;
	END $$`

var refuseDDL = `CREATE OR REPLACE FUNCTION timescale_functions.refuse_ddl() RETURNS event_trigger
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	BEGIN
	  IF timescale_functions.is_read_only_session() THEN
	    RAISE EXCEPTION 'cannot execute % in a read-only transaction', tg_tag
	      USING ERRCODE = '25006', HINT = timescale_functions.read_only_hint();
	  END IF;
	END $$`

// largeObjectWriters are the functions that make, change or remove large objects.
const largeObjectWriters = `lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea), lo_put(oid, bigint, bytea),
	lowrite(integer, bytea), lo_truncate(integer, integer), lo_truncate64(integer, bigint), lo_unlink(oid)`

// poolerAuthFunction answers PgBouncer's auth_query (as tsdbadmin): the SCRAM secret of a role that
// may log in now, so that the pooler authenticates every login role of the database, as the live
// one does.
const poolerAuthFunction = `CREATE OR REPLACE FUNCTION timescale_functions.pooler_auth(user_name text, OUT usename name, OUT passwd text)
	RETURNS record LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
	SELECT rolname, rolpassword FROM pg_authid
	 WHERE rolname = user_name AND rolcanlogin AND NOT rolsuper
	   AND (rolvaliduntil IS NULL OR rolvaliduntil > now())
	$$`

// grantTsdbadminToRole is the vendor's function that makes a read-only role (made by
// create_bare_readonly_role) read what tsdbadmin reads.
var grantTsdbadminToRole = `CREATE OR REPLACE FUNCTION timescale_functions.grant_tsdbadmin_to_role(role_name text) RETURNS void
	LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
	BEGIN
	  IF timescale_functions.is_read_only_session() THEN
	    RAISE EXCEPTION 'cannot execute GRANT in a read-only transaction' USING ERRCODE = '25006';
	  END IF;
	  IF NOT EXISTS (SELECT 1 FROM timescale_functions.read_only_roles r JOIN pg_roles p ON p.oid = r.roleid
	                  WHERE p.rolname = role_name) THEN
	    RAISE EXCEPTION 'role "%" is not a read-only role made by create_bare_readonly_role', role_name
	      USING ERRCODE = '42501';
	  END IF;
	  -- PostgreSQL 15 cannot grant a role without the right to SET ROLE to it: a member of
	  -- tsdbadmin could become tsdbadmin and use its CREATEROLE and CREATEDB. pg_read_all_data
	  -- reads what tsdbadmin reads and nothing more.
	  EXECUTE format('GRANT pg_read_all_data TO %I', role_name);
	END $$`

// readOnlyUpgrade brings the setup of an instance made by an older emulator (one without
// timescale_functions.pooler_auth) up to date; every statement may run again.
var readOnlyUpgrade = []string{
	isReadOnlySession,
	readOnlyHint,
	refuseWrite,
	refuseDDL,
	grantTsdbadminToRole,
	`REVOKE EXECUTE ON FUNCTION ` + largeObjectWriters + ` FROM PUBLIC`,
	`GRANT EXECUTE ON FUNCTION ` + largeObjectWriters + ` TO ` + AdminUser,
	poolerAuthFunction,
	`REVOKE ALL ON FUNCTION timescale_functions.pooler_auth(text) FROM PUBLIC`,
	`GRANT EXECUTE ON FUNCTION timescale_functions.pooler_auth(text) TO ` + AdminUser,
}

// ensureReadOnlySetup runs readOnlySetup in tsdb unless it is there (an instance whose data was
// kept from an older emulator).
func (in *Instance) ensureReadOnlySetup(ctx context.Context) error {
	conn, err := in.connectLocal(ctx, Database)
	if err != nil {
		return fmt.Errorf("pgbackend: %s: %w", in.name, err)
	}
	var there bool
	var current bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'timescale_functions'),
		EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'pooler_auth')`).Scan(&there, &current)
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

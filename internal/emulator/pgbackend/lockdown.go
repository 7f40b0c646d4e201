package pgbackend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// The lockdown: tsdbadmin gets what the live service's admin user has, and nothing that reaches the
// machine the emulator runs on.
//
// What tsdbadmin may do (api-facts: "Connecting to a service"): log in over TLS with the service's
// password; own database tsdb and create databases (CREATEDB); create, alter and drop roles that are
// not superusers (CREATEROLE: login roles with passwords and VALID UNTIL, memberships, ALTER ROLE ...
// SET statement_timeout and tsdb_admin.read_only_role); make read-only roles inheriting itself with
// timescale_functions.create_bare_readonly_role and grant_tsdbadmin_to_role; create the trusted
// extensions (timescaledb and vector when installed); read every role's statistics
// (pg_read_all_stats) and signal any session that is not a superuser's (pg_signal_backend).
//
// What it may not do, because the live service does not let its admin user near the server's
// operating system, files or other services, and because the emulator runs on developers' machines
// and in CI, where a way to run programs or write files as the user that runs its PostgreSQL is a
// way into that machine (and into every other service of the same emulator):
//
//   - be, or make, a superuser, or a role with REPLICATION or BYPASSRLS (PostgreSQL's own rule);
//   - give itself or any role a predefined role beyond the two it has: PostgreSQL 15 lets CREATEROLE
//     grant pg_execute_server_program (COPY ... PROGRAM), pg_read_server_files and
//     pg_write_server_files (COPY to and from the server's files), pg_read_all_data (pg_authid's
//     password verifiers included), pg_monitor (the server's log and WAL directories) and the others.
//     The read-only extension refuses every statement that leaves a role of the service a member of
//     one of them, however it is reached (tsdbadmin/lockdown.c); PostgreSQL 16 refuses them too
//     unless the grantor has ADMIN OPTION;
//   - COPY to or from a server file or a program (refused by the extension before PostgreSQL's own
//     check, for every role but a superuser), read server files (pg_read_file and the like are
//     superuser-only), create untrusted extensions (dblink, postgres_fdw, file_fdw, adminpack),
//     untrusted languages or C functions, subscriptions, tablespaces or event triggers, LOAD a
//     library, or change server settings (ALTER SYSTEM): PostgreSQL's own rules for a role that is
//     not a superuser;
//   - read a password verifier: pg_authid is the superuser's, and the pooler's auth function answers
//     its own role only (readonly.go).
//
// Every instance is administered by the bootstrap superuser "postgres", which logs in over the
// instance's private unix socket only, with a password of that instance (random, kept in the
// Manager's memory: a copy of the template or a fork gets its own at once, an instance whose data
// were kept gets a new one in single-user mode before it starts, a hot standby has its primary's),
// so that nothing that reaches a socket, even a program run by a server, is a superuser of a
// service. Its sessions run with track_activities off (what they run, a new password among it, is
// not in pg_stat_activity, which tsdbadmin reads) and with search_path pg_catalog (tsdbadmin owns
// schema public: a function or operator of its own there that matched a call of the emulator's
// better than the system's would run as the superuser). Other roles log in on the socket without a
// password (PgBouncer, which holds no password for them, reaches its instance there); over TCP
// every role needs TLS and its password, and neither the superuser nor the pooler's auth role may
// log in. The rules are one file of the Manager (hba_file), so instances kept from an older
// emulator follow them too; their memberships in predefined roles are revoked when they start
// (lockdownUpgrade).
//
// Why these, of the ways to close the hole: the membership rule in the extension closes it where it
// opens (the grant), for every way a statement can be reached, and leaves tsdbadmin every grant of
// the live service; the COPY check holds should a membership ever slip through; the superuser's
// password closes what trusting the socket left open to anything that reaches it (peer
// authentication would not: a program run by the server runs as the same operating-system user as
// the emulator, unless the emulator runs as root).
//
// TestLockdownRoutes runs every route with every preparation tsdbadmin may make, on every path.

// hbaConf is the pg_hba.conf of every instance (Manager.hbaFile, passed as hba_file).
const hbaConf = `# dbcloud emulator: one instance per service (pgbackend/lockdown.go)
local   all          ` + superuser + `                   scram-sha-256
local   replication  ` + superuser + `                   scram-sha-256
local   all          all                        trust
host    all          ` + superuser + `     0.0.0.0/0      reject
host    all          ` + poolerAuthUser + ` 0.0.0.0/0      reject
hostssl all          all          127.0.0.1/32  scram-sha-256
`

// allowedPredefined are the predefined roles a role of the service may be a member of: tsdbadmin's
// (kept in step with allowed_predefined of tsdbadmin/lockdown.c).
var allowedPredefined = []string{"pg_read_all_stats", "pg_signal_backend"}

// lockdownUpgrade revokes, on an instance kept from an older emulator, every membership that makes
// a role of the service a member of another predefined role (directly, or through one of the two
// allowed ones).
var lockdownUpgrade = `DO $$
DECLARE m record;
BEGIN
  FOR m IN SELECT g.rolname AS role, u.rolname AS member
             FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid JOIN pg_roles u ON u.oid = a.member
            WHERE g.oid < 16384 AND NOT u.rolsuper
              AND ((u.oid >= 16384 AND g.rolname <> ALL (ARRAY['` + strings.Join(allowedPredefined, "', '") + `']))
                   OR u.rolname = ANY (ARRAY['` + strings.Join(allowedPredefined, "', '") + `']))
  LOOP
    EXECUTE format('REVOKE %I FROM %I', m.role, m.member);
  END LOOP;
END $$`

// newSecret is a random password for the superuser.
func newSecret() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on the systems the emulator runs on
	}
	return hex.EncodeToString(b)
}

// superuserPassword is the password connectLocal logs in with.
func (in *Instance) superuserPassword() string {
	if p := in.superPW.Load(); p != nil {
		return *p
	}
	return ""
}

func (in *Instance) setSuperuserPassword(pw string) { in.superPW.Store(&pw) }

// newSuperuserPassword answers the statement that gives the superuser a new password, and the
// password (in force once the statement ran: setSuperuserPassword).
func newSuperuserPassword() (stmt, pw string) {
	pw = newSecret()
	return "ALTER ROLE " + superuser + " PASSWORD '" + pw + "'", pw
}

// resetSuperuser gives the superuser of a stopped instance whose data were kept a new password, in
// single-user mode (no connection at all: the password it had is not known).
func (m *Manager) resetSuperuser(in *Instance) error {
	stmt, pw := newSuperuserPassword()
	if err := m.singleUser(in, stmt, pw); err != nil {
		return fmt.Errorf("pgbackend: %s: a new superuser password: %w", in.name, err)
	}
	in.setSuperuserPassword(pw)
	return nil
}

// singleUser runs one statement in tsdb of a stopped instance in single-user mode (no connection,
// and no extension loaded); secret, when not empty, is masked in the output an error quotes.
func (m *Manager) singleUser(in *Instance, stmt, secret string) error {
	cmd := exec.Command(filepath.Join(m.binDir, "postgres"), "--single", "-j", "-D", in.data,
		"-c", "exit_on_error=on", "-c", "log_min_messages=warning", "-c", "log_min_error_statement=panic", Database)
	cmd.Stdin = strings.NewReader(stmt + ";\n\n")
	cmd.Dir = in.dir
	cmd.Env = childEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: m.cred, Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		if secret != "" {
			out = []byte(strings.ReplaceAll(string(out), secret, "********"))
		}
		return fmt.Errorf("single-user mode: %w\n%s", err, tail(out, 1500))
	}
	return nil
}

// upgradeKept brings a started instance whose data were kept from an older emulator up to date:
// the read-only set-up (readonly.go) and the lockdown's memberships.
func (in *Instance) upgradeKept(ctx context.Context) error {
	if err := in.ensureReadOnlySetup(ctx); err != nil {
		return err
	}
	return in.admin(ctx, Database, lockdownUpgrade)
}

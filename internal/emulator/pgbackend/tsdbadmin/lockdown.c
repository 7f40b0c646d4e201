/*
 * lockdown: what keeps the service's roles away from the machine the emulator runs on (see
 * pgbackend/lockdown.go for the whole picture). Called from tsdb_admin.c's ProcessUtility hook.
 *
 * PostgreSQL 15 lets a role with CREATEROLE (tsdbadmin) grant membership in any role that is not a
 * superuser, predefined roles included: pg_execute_server_program (COPY ... PROGRAM runs a program
 * as the server's operating-system user), pg_read_server_files and pg_write_server_files (COPY to
 * and from the server's files), pg_read_all_data (every table, pg_authid's password verifiers
 * included), and the others. The live service does not let its admin user near the server's
 * programs and files, and PostgreSQL 16 no longer lets CREATEROLE grant a role without ADMIN
 * OPTION on it. So here, after every statement that may add a membership (GRANT role, CREATE
 * ROLE, ALTER GROUP ... ADD USER), whoever runs it and however it is reached (a DO block, a
 * function, an extension's script), no role made on the service may be a member, directly or
 * through other roles, of a predefined role other than the two tsdbadmin has from the start:
 * pg_read_all_stats and pg_signal_backend. Otherwise the statement fails (SQLSTATE 42501) and its
 * transaction is rolled back.
 *
 * COPY to or from a file or a program is refused to every role that is not a superuser before
 * PostgreSQL looks at it: with the membership rule PostgreSQL's own check refuses it as well; this
 * holds even if a membership ever slipped through.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"
#include "utils/acl.h"
#include "utils/rel.h"

void		lockdown_before_utility(Node *stmt);
void		lockdown_after_utility(Node *stmt);

/*
 * The predefined roles a role made on the service may be a member of: tsdbadmin's own, and
 * pg_database_owner, whose members are the owners of the current database (no one can grant it).
 */
static const char *const allowed_predefined[] = {"pg_read_all_stats", "pg_signal_backend", "pg_database_owner", NULL};

#define LOCKDOWN_HINT "On the emulated service, as on the live one, no role may reach the server's programs, files or every role's data: " \
	"a role made on the service may be a member of no predefined role but pg_read_all_stats and pg_signal_backend."

static bool
allowed(const char *name)
{
	for (int i = 0; allowed_predefined[i] != NULL; i++)
		if (strcmp(name, allowed_predefined[i]) == 0)
			return true;
	return false;
}

/*
 * check_memberships fails when a role made on the service (not a superuser) is a member, by any
 * chain of memberships, of a predefined role that is not allowed.
 */
static void
check_memberships(void)
{
	Relation	rel;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *forbidden = NIL;
	List	   *made = NIL;
	ListCell   *r;
	ListCell   *p;

	CommandCounterIncrement();	/* the statement's own memberships */
	rel = table_open(AuthIdRelationId, AccessShareLock);
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_authid role = (Form_pg_authid) GETSTRUCT(tup);

		if (role->rolsuper)
			continue;
		if (role->oid >= FirstNormalObjectId)
			made = lappend_oid(made, role->oid);
		else if (!allowed(NameStr(role->rolname)))
			forbidden = lappend_oid(forbidden, role->oid);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);

	foreach(r, made)
	{
		foreach(p, forbidden)
		{
			if (is_member_of_role_nosuper(lfirst_oid(r), lfirst_oid(p)))
				ereport(ERROR,
						(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
						 errmsg("permission denied to make role \"%s\" a member of \"%s\"",
								GetUserNameFromId(lfirst_oid(r), false), GetUserNameFromId(lfirst_oid(p), false)),
						 errhint(LOCKDOWN_HINT)));
		}
	}
}

/*
 * adds_members reports whether a statement may add a role membership: GRANT role, CREATE ROLE
 * (IN ROLE, ROLE, ADMIN), ALTER GROUP ... ADD USER.
 */
static bool
adds_members(Node *stmt)
{
	ListCell   *lc;

	switch (nodeTag(stmt))
	{
		case T_GrantRoleStmt:
			return ((GrantRoleStmt *) stmt)->is_grant;
		case T_CreateRoleStmt:
			return true;
		case T_AlterRoleStmt:
			if (((AlterRoleStmt *) stmt)->action != 1)
				return false;
			foreach(lc, ((AlterRoleStmt *) stmt)->options)
			{
				if (strcmp(lfirst_node(DefElem, lc)->defname, "rolemembers") == 0)
					return true;
			}
			return false;
		default:
			return false;
	}
}

void
lockdown_before_utility(Node *stmt)
{
	if (IsA(stmt, CopyStmt) && ((CopyStmt *) stmt)->filename != NULL && !superuser())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied to COPY %s a %s", ((CopyStmt *) stmt)->is_from ? "from" : "to",
						((CopyStmt *) stmt)->is_program ? "program" : "server file"),
				 errhint("Use COPY ... FROM STDIN or TO STDOUT (psql's \\copy). " LOCKDOWN_HINT)));
}

void
lockdown_after_utility(Node *stmt)
{
	if (adds_members(stmt))
		check_memberships();
}

/*
 * tsdb_admin: the emulator's stand-in for the service's own extension that makes sessions
 * read-only (api-facts: "Read-only on the live service"). Loaded into every backend with
 * session_preload_libraries (pgbackend builds it with PGXS and passes its path to postgres).
 *
 * A session is read-only when it was opened with tsdb_admin.read_only_connection = true (a
 * startup option; the parameter is PGC_BACKEND, so SET cannot change it), or when the settings of
 * its authenticated role (pg_db_role_setting, as ALTER ROLE ... SET stores them) hold
 * tsdb_admin.read_only_role = true. That is decided once per session and kept in this backend's
 * memory: SET, RESET, SET ROLE, SET SESSION AUTHORIZATION or startup options change nothing.
 *
 * In a read-only session every statement, every function call (also the protocol's fast-path
 * calls that libpq's large-object functions use) runs in a read-only transaction: PostgreSQL
 * itself then refuses writes, DDL, roles, databases, grants, sequences and large objects, also
 * inside SECURITY DEFINER functions. Asking for a read-write transaction is refused at once.
 * Errors of SQLSTATE 25006 get a hint naming what made the session read-only.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_db_role_setting.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/elog.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/rel.h"

PG_MODULE_MAGIC;

#define OPTION "tsdb_admin.read_only_connection"
#define ROLE_SETTING "tsdb_admin.read_only_role"

void _PG_init(void);

/* lockdown.c: the service's roles kept away from the server's programs and files. */
extern void lockdown_before_utility(Node *stmt);
extern void lockdown_after_utility(Node *stmt);

static bool guc_read_only_connection = false;
static bool guc_read_only_role = false;

/* What the session was opened with; decided once. */
static bool by_option = false;
static bool role_decided = false;
static bool by_role = false;
static bool deciding = false;

static ExecutorStart_hook_type prev_executor_start = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;
static object_access_hook_type prev_object_access = NULL;
static emit_log_hook_type prev_emit_log = NULL;

/*
 * role_setting looks the setting up in pg_db_role_setting for (database, role) and reports
 * whether it is there (its value in *value).
 */
static bool
role_setting(Relation rel, Oid database, Oid role, bool *value)
{
	ScanKeyData keys[2];
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found = false;

	ScanKeyInit(&keys[0], Anum_pg_db_role_setting_setdatabase, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(database));
	ScanKeyInit(&keys[1], Anum_pg_db_role_setting_setrole, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(role));
	scan = systable_beginscan(rel, DbRoleSettingDatidRolidIndexId, true, NULL, 2, keys);
	while (!found && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, Anum_pg_db_role_setting_setconfig, RelationGetDescr(rel), &isnull);
		Datum	   *elems;
		bool	   *nulls;
		int			n;

		if (isnull)
			continue;
		deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT, &elems, &nulls, &n);
		for (int i = 0; i < n && !found; i++)
		{
			char	   *item;
			char	   *eq;

			if (nulls[i])
				continue;
			item = TextDatumGetCString(elems[i]);
			eq = strchr(item, '=');
			if (eq == NULL)
				continue;
			*eq = '\0';
			if (pg_strcasecmp(item, ROLE_SETTING) == 0)
			{
				found = true;
				if (!parse_bool(eq + 1, value))
					*value = false;
			}
		}
	}
	systable_endscan(scan);
	return found;
}

/* role_read_only reads the role's flag as PostgreSQL would apply it (the most specific wins). */
static bool
role_read_only(void)
{
	Oid			role = GetAuthenticatedUserId();
	Relation	rel = table_open(DbRoleSettingRelationId, AccessShareLock);
	bool		value = false;

	if (!role_setting(rel, MyDatabaseId, role, &value) &&
		!role_setting(rel, InvalidOid, role, &value) &&
		!role_setting(rel, MyDatabaseId, InvalidOid, &value))
		(void) role_setting(rel, InvalidOid, InvalidOid, &value);
	table_close(rel, AccessShareLock);
	return value;
}

static bool
session_read_only(void)
{
	if (!role_decided && !deciding && IsTransactionState() && OidIsValid(MyDatabaseId))
	{
		deciding = true;
		PG_TRY();
		{
			by_role = role_read_only();
		}
		PG_FINALLY();
		{
			deciding = false;
		}
		PG_END_TRY();
		role_decided = true;
	}
	/* Until the role's flag is known, a session is taken as read-only. */
	return by_option || by_role || !role_decided;
}

static void
force_read_only(void)
{
	if (IsTransactionState() && !deciding && session_read_only())
		XactReadOnly = true;
}

static const char *
hint(void)
{
	if (by_option)
		return "This session was opened with " OPTION " = true (read_only_connection_uri): it stays read-only; connect without the option to write.";
	return "This login is read-only (" ROLE_SETTING "): use a login that is not read-only to write.";
}

static void
refuse(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
			 errmsg("cannot execute %s in a read-only transaction", what),
			 errhint("%s", hint())));
}

/* asks_read_write reports whether a list of transaction options asks for READ WRITE. */
static bool
asks_read_write(List *options)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *d = lfirst_node(DefElem, lc);

		if (strcmp(d->defname, "transaction_read_only") == 0 && d->arg != NULL && IsA(d->arg, A_Const) &&
			!((A_Const *) d->arg)->isnull && !intVal(&((A_Const *) d->arg)->val))
			return true;
	}
	return false;
}

/* turns_off reports whether SET's value is false. */
static bool
turns_off(List *args)
{
	A_Const    *c;
	bool		b;

	if (list_length(args) != 1 || !IsA(linitial(args), A_Const))
		return false;
	c = (A_Const *) linitial(args);
	if (c->isnull)
		return false;
	if (IsA(&c->val, Integer))
		return intVal(&c->val) == 0;
	if (IsA(&c->val, String))
		return parse_bool(strVal(&c->val), &b) && !b;
	if (IsA(&c->val, Boolean))
		return !boolVal(&c->val);
	return false;
}

static void
check_utility(Node *stmt)
{
	if (IsA(stmt, TransactionStmt))
	{
		TransactionStmt *t = (TransactionStmt *) stmt;

		if ((t->kind == TRANS_STMT_BEGIN || t->kind == TRANS_STMT_START) && asks_read_write(t->options))
			refuse(t->kind == TRANS_STMT_BEGIN ? "BEGIN READ WRITE" : "START TRANSACTION READ WRITE");
	}
	else if (IsA(stmt, VariableSetStmt))
	{
		VariableSetStmt *v = (VariableSetStmt *) stmt;

		if (v->name == NULL)
			return;
		if (v->kind == VAR_SET_MULTI && strcmp(v->name, "TRANSACTION") == 0 && asks_read_write(v->args))
			refuse("SET TRANSACTION READ WRITE");
		if (v->kind == VAR_SET_MULTI && strcmp(v->name, "SESSION CHARACTERISTICS") == 0 && asks_read_write(v->args))
			refuse("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE");
		if (pg_strcasecmp(v->name, "transaction_read_only") == 0 ||
			pg_strcasecmp(v->name, "default_transaction_read_only") == 0)
		{
			if ((v->kind == VAR_SET_VALUE && turns_off(v->args)) || v->kind == VAR_SET_DEFAULT || v->kind == VAR_RESET)
				refuse(psprintf("%s %s", v->kind == VAR_RESET ? "RESET" : "SET", v->name));
		}
	}
}

static void
ro_executor_start(QueryDesc *queryDesc, int eflags)
{
	force_read_only();
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
ro_process_utility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				   ProcessUtilityContext context, ParamListInfo params, QueryEnvironment *queryEnv,
				   DestReceiver *dest, QueryCompletion *qc)
{
	if (session_read_only())
		check_utility(pstmt->utilityStmt);
	force_read_only();
	lockdown_before_utility(pstmt->utilityStmt);
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
	lockdown_after_utility(pstmt->utilityStmt);
}

/*
 * large_object_writer names the function if it makes, changes or removes a large object:
 * PostgreSQL 15 lets those run in a read-only transaction.
 */
static const char *
large_object_writer(Oid fn)
{
	switch (fn)
	{
		case F_LO_CREATE:
			return "lo_create()";
		case F_LO_CREAT:
			return "lo_creat()";
		case F_LO_FROM_BYTEA:
			return "lo_from_bytea()";
		case F_LO_PUT:
			return "lo_put()";
		case F_LOWRITE:
			return "lowrite()";
		case F_LO_TRUNCATE:
			return "lo_truncate()";
		case F_LO_TRUNCATE64:
			return "lo_truncate64()";
		case F_LO_UNLINK:
			return "lo_unlink()";
		case F_LO_IMPORT_TEXT:
		case F_LO_IMPORT_TEXT_OID:
			return "lo_import()";
	}
	return NULL;
}

/* Every function call (in queries, PL/pgSQL expressions and fast-path calls) is checked here. */
static void
ro_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (prev_object_access)
		prev_object_access(access, classId, objectId, subId, arg);
	if (access == OAT_FUNCTION_EXECUTE && !deciding)
	{
		const char *lo = large_object_writer(objectId);

		force_read_only();
		if (lo != NULL && session_read_only())
			ereport(ERROR,
					(errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
					 errmsg("cannot execute %s in a read-only transaction", lo),
					 errhint("%s", hint())));
	}
}

static void
ro_emit_log(ErrorData *edata)
{
	if (edata->elevel >= ERROR && edata->sqlerrcode == ERRCODE_READ_ONLY_SQL_TRANSACTION &&
		edata->hint == NULL && (by_option || by_role))
		edata->hint = pstrdup(hint());
	if (prev_emit_log)
		prev_emit_log(edata);
}

void
_PG_init(void)
{
	DefineCustomBoolVariable(OPTION,
							 "Makes the session read-only for its whole life (a startup option; SET cannot change it).",
							 NULL, &guc_read_only_connection, false, PGC_BACKEND, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable(ROLE_SETTING,
							 "Makes every session of the role read-only (ALTER ROLE ... SET).",
							 NULL, &guc_read_only_role, false, PGC_SUSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("tsdb_admin");
	by_option = guc_read_only_connection;

	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = ro_executor_start;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = ro_process_utility;
	prev_object_access = object_access_hook;
	object_access_hook = ro_object_access;
	prev_emit_log = emit_log_hook;
	emit_log_hook = ro_emit_log;
}

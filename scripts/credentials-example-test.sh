#!/usr/bin/env bash
# Applies examples/guides/connecting (the "Connecting to a service" guide's path, with
# psql in place of the PostgreSQL provider) against the API emulator with PostgreSQL
# behind it (part of `make test`), and checks what the guide promises:
#
#   - the application's role is made as tsdbadmin with the write-only admin password;
#   - a short-lived login that is a member of it makes a table that belongs to it;
#   - a read-only login reads the table and cannot write, even with
#     default_transaction_read_only turned off;
#   - read_only_connection_uri opens sessions that cannot write;
#   - no login role is left after the apply, nor after a plan (which makes logins too);
#   - the state, `terraform show` and the logs (TF_LOG=trace) hold neither the admin
#     password nor a login's;
#   - a plan after the apply is empty;
#   - a rotation of the admin password is one apply with previous_admin_password: the logins,
#     which log in as the guide's PostgreSQL provider does (local.admin_password_now), log in with
#     the previous password while planning and with the new one while applying; without it the
#     plan-time login is refused (where that provider's plan fails);
#   - destroy empties the state.
#
# The guide's own blocks run from the page in scripts/guides-test.sh (the page runner, with PostgreSQL
# behind its emulator: postgres=on), and its configuration with the PostgreSQL provider in
# TestAccConnectingGuidePostgreSQL (go test), with that provider built from its source.
#
# Needs the PostgreSQL server binaries and psql. The last line of its output is
# "credentials-example: N passed, M failed". Environment: BIN_DIR (provider build,
# default ./bin).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$PWD"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/emulator-lib.sh
source scripts/emulator-lib.sh
unset TF_CLI_ARGS_plan TF_CLI_ARGS_apply TF_CLI_ARGS_destroy TF_CLI_ARGS_output TF_WORKSPACE TF_DATA_DIR
unset PGHOST PGPORT PGUSER PGDATABASE PGPASSWORD PGSSLMODE PGSERVICE PGOPTIONS

require_terraform
command -v psql >/dev/null 2>&1 || die "psql not found (apt-get install postgresql-client)"
work="$LIB_TMP"
build_provider_and_emulator
use_cli_config "$bin_dir"
project_id="creds0001"
start_emulator test-access test-secret "$project_id" on
$emu_postgres || die "the emulator runs without PostgreSQL: this example needs it"

dir="$work/connecting"
mkdir -p "$dir"
cp "$repo"/examples/guides/connecting/*.tf "$repo"/examples/guides/connecting/*.sql "$dir/"
tf() { (cd "$dir" && "$TERRAFORM" "$@"); }

# A password with reserved and non-ASCII characters, as users have.
admin_password="Adm1n/p@ss:w?rd#$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')-ü"
export TF_VAR_admin_password="$admin_password"
# The report step of the example, extended to prove the read-only login cannot write.
export TF_VAR_report_command="printf '%s' \"\$DATABASE_URL\" > '$work/report.url' && psql \"\$DATABASE_URL\" -tAc 'SELECT count(*) FROM items' > '$work/report.out' && ! psql \"\$DATABASE_URL\" -v ON_ERROR_STOP=1 -c 'SET default_transaction_read_only = off' -c \"INSERT INTO items (name) VALUES ('no')\" 2> '$work/report.err'"
export TF_VAR_migration_command="printf '%s' \"\$DATABASE_URL\" > '$work/migrate.url' && psql \"\$DATABASE_URL\" -v ON_ERROR_STOP=1 -q -f schema.sql"

log "apply examples/guides/connecting"
# TF_LOG=trace: the provider's logs land in the same file, which must not hold a password either.
if TF_LOG=trace TF_LOG_PATH="$work/trace.log" tf apply -auto-approve -input=false -no-color >"$work/apply.log" 2>&1; then
	ok "apply: service with password_wo, app role, migration login, read-only login"
else
	cat "$work/apply.log"
	fail "apply"
	summary credentials-example
	exit 1
fi

uri="$(tf output -raw connection_uri)"
ro_uri="$(tf output -raw read_only_connection_uri)"
admin_sql() { PGPASSWORD="$admin_password" psql "$uri" -v ON_ERROR_STOP=1 -tAc "$1"; }

check "the migration login made table items, owned by app" \
	test "$(admin_sql "SELECT tableowner FROM pg_tables WHERE tablename = 'items'")" = app
check "the read-only login read items" test "$(cat "$work/report.out" 2>/dev/null)" = 0
check "the read-only login could not write after SET default_transaction_read_only = off (SQLSTATE 25006)" \
	grep -q 'read-only transaction' "$work/report.err"
check "no login role left after the apply" test "$(admin_sql "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%'")" = 0
check "the migration login no longer logs in" \
	bash -c "! psql \"\$(cat '$work/migrate.url')\" -tAc 'SELECT 1' >/dev/null 2>&1"

ro_write() {
	PGPASSWORD="$admin_password" psql "$ro_uri" -v ON_ERROR_STOP=1 -c 'SET default_transaction_read_only = off' \
		-c "INSERT INTO items (name) VALUES ('no')" >/dev/null 2>"$work/ro.err" && return 1
	grep -q 'read-only transaction' "$work/ro.err"
}
check "read_only_connection_uri: reads work" test "$(PGPASSWORD="$admin_password" psql "$ro_uri" -tAc 'SELECT count(*) FROM items')" = 0
check "read_only_connection_uri: a write fails (SQLSTATE 25006)" ro_write

rc=0
tf plan -input=false -detailed-exitcode -no-color >"$work/plan.log" 2>&1 || rc=$?
if [[ $rc -eq 0 ]]; then ok "a plan after the apply is empty"; else
	cat "$work/plan.log"
	fail "a plan after the apply is empty (exit $rc)"
fi
check "no login role left after the plan" test "$(admin_sql "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%'")" = 0

tf show -no-color >"$work/show.txt" 2>&1
tf show -json >"$work/show.json" 2>&1
no_secret() {
	local secret="$1" f
	[[ -n "$secret" ]] || return 1
	for f in "$dir/terraform.tfstate" "$work/show.txt" "$work/show.json" "$work/apply.log" "$work/plan.log" "$work/trace.log"; do
		if [[ ! -s "$f" ]]; then
			echo "        $f is missing or empty"
			return 1
		fi
		if grep -qF -- "$secret" "$f"; then
			echo "        $f holds it"
			return 1
		fi
	done
}
login_password() { sed -n 's|^postgresql://[^:]*:\([^@]*\)@.*|\1|p' "$1" 2>/dev/null; }
check "the trace log holds the provider's own log lines" grep -q 'dbcloud_service_credentials: login created' "$work/trace.log"
check "the state, terraform show and the logs (TF_LOG=trace too) hold no admin password" no_secret "$admin_password"
check "... nor the migration login's password" no_secret "$(login_password "$work/migrate.url")"
check "... nor the read-only login's password" no_secret "$(login_password "$work/report.url")"

log "rotate the admin password in one apply, as the PostgreSQL provider's configuration does"
# The logins log in with local.admin_password_now, as the PostgreSQL provider of the guide does: while
# planning, the previous password (the service still has it), which is where that provider reads its
# roles; when applying, the new one, after the service's update sent it. The same apply changes the
# migration, so that a login is made while applying too (where that provider would make its changes).
rotate() { # version, new password, previous password or "", log file
	sed -i "s/password_wo_version = [0-9]*/password_wo_version = $1/" "$dir/main.tf"
	printf '\nCREATE TABLE IF NOT EXISTS rotated_%s (v int);\n' "$1" >>"$dir/schema.sql"
	if [[ -n "$3" ]]; then
		(export TF_VAR_admin_password="$2" TF_VAR_previous_admin_password="$3"; tf apply -auto-approve -input=false -no-color) >"$4" 2>&1
	else
		(export TF_VAR_admin_password="$2"; unset TF_VAR_previous_admin_password; tf apply -auto-approve -input=false -no-color) >"$4" 2>&1
	fi
}
previous_password="$admin_password"
admin_password="R0tated/p@ss:#$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')-é"
if rotate 2 "$admin_password" "$previous_password" "$work/rotate.log"; then ok "rotation with previous_admin_password: one apply"; else
	cat "$work/rotate.log"
	fail "rotation with previous_admin_password: one apply"
fi
check "... while planning, the logins logged in with the previous password (no \"No login made\" warning)" \
	bash -c "! grep -q 'No login made' '$work/rotate.log'"
check "... the login made while applying used the new password: the migration made rotated_2, owned by app" \
	test "$(admin_sql "SELECT tableowner FROM pg_tables WHERE tablename = 'rotated_2'")" = app
check "... the new password logs in" test "$(admin_sql 'SELECT 1')" = 1
check "... the previous one no longer does" \
	bash -c "! PGPASSWORD=\"\$1\" psql \"\$2\" -tAc 'SELECT 1' >/dev/null 2>&1" _ "$previous_password" "$uri"
rc=0
(export TF_VAR_admin_password="$admin_password"; tf plan -input=false -detailed-exitcode -no-color) >"$work/plan-rotated.log" 2>&1 || rc=$?
if [[ $rc -eq 0 ]] && ! grep -q 'No login made' "$work/plan-rotated.log"; then ok "... a plan after it (previous_admin_password unset) is empty and logs in"; else
	cat "$work/plan-rotated.log"
	fail "... a plan after it (previous_admin_password unset) is empty and logs in (exit $rc)"
fi
check "... no login role left" test "$(admin_sql "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'tf\_login\_%'")" = 0

# Without previous_admin_password, the plan-time login is refused: where the PostgreSQL provider's plan
# fails (28P01). The logins only warn and the apply still goes through.
previous_password="$admin_password"
admin_password="Th1rd/p@ss#$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
if rotate 3 "$admin_password" "" "$work/rotate-noprev.log" && grep -q 'No login made' "$work/rotate-noprev.log"; then
	ok "rotation without previous_admin_password: the plan-time login is refused (a warning), the apply goes through"
else
	cat "$work/rotate-noprev.log"
	fail "rotation without previous_admin_password: the plan-time login is refused (a warning), the apply goes through"
fi
check "... the new password logs in" test "$(admin_sql 'SELECT 1')" = 1
export TF_VAR_admin_password="$admin_password"

if tf destroy -auto-approve -input=false -no-color >"$work/destroy.log" 2>&1 && [[ -z "$(tf state list 2>/dev/null)" ]]; then
	ok "destroy"
else
	cat "$work/destroy.log"
	fail "destroy"
fi

summary credentials-example

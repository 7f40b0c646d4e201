// Command pgcheck proves that a service's endpoint is a working database: it logs in with a
// password, writes a row, and reads it back (for example from a fork's endpoint).
//
//	PGPASSWORD=... go run ./internal/emulator/cmd/pgcheck write -host H -port P -value hello
//	PGPASSWORD=... go run ./internal/emulator/cmd/pgcheck read  -host H -port P -value hello
//
// write creates the table if needed, inserts the value and reads it back; read checks that the
// value is in the table. It logs in as a client of the real service does: user tsdbadmin, database
// tsdb, TLS without verification (sslmode=require); -user, -dbname and -sslmode change that. The
// password comes from an environment variable (PGPASSWORD by default), never from the command line. Connecting is retried for -wait. Exit status 0: done;
// 1: failed; 2: usage.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "pgcheck:", err)
		os.Exit(1)
	}
}

var errUsage = errors.New("usage error")

type options struct {
	cmd                string
	host               string
	port               int
	user, dbname       string
	sslmode            string
	passwordEnv        string
	table, value       string
	wait               time.Duration
	password           string
	passwordFromEnvSet bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	usage := func() {
		_, _ = fmt.Fprintln(stderr, "usage: pgcheck write|read -host H -port P [-user U] [-dbname D] [-sslmode M] [-value V] [-table T] [-password-env NAME] [-wait D]")
	}
	if len(args) == 0 || (args[0] != "write" && args[0] != "read") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
			usage()
			return o, flag.ErrHelp
		}
		usage()
		return o, errUsage
	}
	o.cmd = args[0]
	fs := flag.NewFlagSet("pgcheck "+o.cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.host, "host", "127.0.0.1", "database host")
	fs.IntVar(&o.port, "port", 5432, "database port")
	fs.StringVar(&o.user, "user", "tsdbadmin", "user")
	fs.StringVar(&o.dbname, "dbname", "tsdb", "database")
	fs.StringVar(&o.sslmode, "sslmode", "require", "TLS: require (no verification), disable, prefer, verify-ca or verify-full")
	fs.StringVar(&o.passwordEnv, "password-env", "PGPASSWORD", "environment variable holding the password")
	fs.StringVar(&o.table, "table", "dbcloud_check", "table to write to and read from")
	fs.StringVar(&o.value, "value", "written by pgcheck", "value of the row")
	fs.DurationVar(&o.wait, "wait", 30*time.Second, "how long to retry connecting")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return o, err
		}
		return o, errUsage
	}
	o.password, o.passwordFromEnvSet = os.LookupEnv(o.passwordEnv)
	switch {
	case fs.NArg() > 0:
		_, _ = fmt.Fprintf(stderr, "unexpected arguments: %q\n", fs.Args())
		return o, errUsage
	case o.user == "" || o.dbname == "":
		_, _ = fmt.Fprintln(stderr, "-user and -dbname must not be empty")
		return o, errUsage
	case !o.passwordFromEnvSet:
		_, _ = fmt.Fprintf(stderr, "$%s is not set: it must hold the password\n", o.passwordEnv)
		return o, errUsage
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	conn, err := connect(ctx, o)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	table := pgx.Identifier{o.table}.Sanitize()
	tlsState := "without TLS"
	if _, ok := conn.PgConn().Conn().(*tls.Conn); ok {
		tlsState = "over TLS"
	}
	where := fmt.Sprintf("%s:%d, database %s, user %s, %s", o.host, o.port, o.dbname, o.user, tlsState)
	if o.cmd == "write" {
		if _, err := conn.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+table+" (value text NOT NULL, written timestamptz NOT NULL DEFAULT now())"); err != nil {
			return fmt.Errorf("creating table %s on %s: %w", o.table, where, err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO "+table+" (value) VALUES ($1)", o.value); err != nil {
			return fmt.Errorf("writing to %s on %s: %w", o.table, where, err)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+table+" WHERE value = $1", o.value).Scan(&n); err != nil {
		return fmt.Errorf("reading %s on %s: %w", o.table, where, err)
	}
	if n == 0 {
		return fmt.Errorf("no row %q in table %s on %s", o.value, o.table, where)
	}
	verb := "read"
	if o.cmd == "write" {
		verb = "wrote and read back"
	}
	_, err = fmt.Fprintf(stdout, "pgcheck: %s %q in table %s on %s\n", verb, o.value, o.table, where)
	return err
}

// connect logs in, retrying for o.wait.
func connect(ctx context.Context, o options) (*pgx.Conn, error) {
	if o.port <= 0 || o.port > 65535 {
		return nil, fmt.Errorf("-port %d is not a TCP port", o.port)
	}
	// Host, port and sslmode go into the string so that the fallbacks of sslmode=prefer use them;
	// the secrets are set as fields.
	quote := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host='%s' port=%d sslmode='%s' connect_timeout=5", quote(o.host), o.port, quote(o.sslmode)))
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Database, cfg.Password = o.user, o.dbname, o.password
	deadline := time.Now().Add(o.wait)
	for {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			return conn, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("connecting to %s:%d as %s: %w", o.host, o.port, o.user, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(500 * time.Millisecond):
		}
	}
}

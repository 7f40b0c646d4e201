// Command emulator serves the in-memory dbcloud API emulator over HTTP.
//
//	go run ./internal/emulator/cmd/emulator -addr 127.0.0.1:8080 -access-key K -secret-key S
//	go run ./internal/emulator/cmd/emulator -token T   # or DBCLOUD_EMULATOR_TOKEN=T: Bearer tokens too
//
// It prints its base URL (e.g. http://127.0.0.1:8080/v1) as the first line on stdout (and, with
// -url-file FILE, writes it to FILE once it serves), then serves until SIGINT or SIGTERM, and shuts
// down gracefully. -addr 127.0.0.1:0 picks a free port.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"reflect"
	"strings"
	"syscall"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
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
		fmt.Fprintln(os.Stderr, "emulator:", err)
		os.Exit(1)
	}
}

// envToken names the environment variable of the -token flag.
const envToken = "DBCLOUD_EMULATOR_TOKEN"

// errUsage marks command-line errors (already reported by the flag set).
var errUsage = errors.New("usage error")

// config is the parsed command line.
type config struct {
	addr    string
	opts    emulator.Options
	log     bool
	urlFile urlFile // -url-file: the base URL, written once the emulator serves (urlfile.go)

	postgres       string // -postgres: auto, on or off (postgres.go)
	postgresBinDir string

	stateFile string  // -state: persist the state to this JSON file (statefile.go)
	speed     float64 // -speed: factor applied to every lifecycle timing

	outage emulator.Outage // -outage, -outage-for, -outage-start-on: an outage window (outage.go)
}

// parseFlags parses the command line. Usage and flag errors are written to stderr.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&cfg.opts.AccessKey, "access-key", "", "access key (Basic user); with -secret-key empty too, any credentials are accepted")
	fs.StringVar(&cfg.opts.SecretKey, "secret-key", "", "secret key (Basic password)")
	tokens := fs.String("token", os.Getenv(envToken), "comma-separated bearer tokens accepted (Authorization: Bearer) besides the keys "+
		"(empty: none; default $"+envToken+"); any other token answers 401")
	projects := fs.String("projects", "", "comma-separated allow-list of project ids (empty: any project)")
	preset := fs.String("timing", "demo", "timing preset: fast (tests, ~50ms phases), demo (seconds) or instant")
	fs.BoolVar(&cfg.log, "log", false, "log every request to stderr")
	fs.StringVar((*string)(&cfg.urlFile), "url-file", "", "write the base URL to this file once the emulator serves (removed at start, written atomically, removed at exit): for scripts that start it in the background")
	fs.StringVar(&cfg.stateFile, "state", "", "persist the emulator's state (services, replica sets, VPCs, peerings, passwords) to this JSON file: loaded at start, saved after every change and at shutdown; with -postgres the services' data directories are kept in FILE.pgdata")
	fs.Float64Var(&cfg.speed, "speed", 1, "scale every lifecycle timing by this factor (0.1: ten times faster; 10: ten times slower; 0: instant)")
	fs.StringVar(&cfg.postgres, "postgres", postgresAuto, "a real PostgreSQL instance behind each service (tsdbadmin, database tsdb, TLS; PgBouncer poolers when pgbouncer is installed): auto (on when the server binaries are found and its read-only extension builds, else records only), on or off")
	fs.StringVar(&cfg.postgresBinDir, "postgres-bindir", "", "directory of the PostgreSQL server binaries (default: $"+pgbackend.EnvBinDir+", pg_config --bindir, the newest /usr/lib/postgresql/*/bin)")

	// Explicit durations override the preset's.
	var overrides emulator.Timing
	for _, d := range timingFlags {
		fs.DurationVar(d.field(&overrides), d.name, 0, d.usage+" (overrides -timing)")
	}

	f := &cfg.opts.Faults
	fs.Float64Var(&f.RateLimit, "rate-limit", 0, "probability of a 429 answer")
	fs.DurationVar(&f.RetryAfter, "retry-after", time.Second, "Retry-After sent with 429 answers")
	fs.Float64Var(&f.ServerError, "server-error", 0, "probability of a 500 answer")
	fs.Float64Var(&f.Unavailable, "unavailable", 0, "probability of a 503 answer")
	fs.DurationVar(&f.Latency, "latency", 0, "latency added to every request")
	fs.Float64Var(&f.CommitThenFail, "commit-then-fail", 0, "probability that a state-changing request is carried out but answered 500")
	fs.BoolVar(&f.DropConnection, "drop", false, "with -commit-then-fail, drop the connection instead of answering 500")
	fs.Int64Var(&f.Seed, "seed", 1, "seed of the fault random source")
	outageKind := fs.String("outage", "", "an outage window: unavailable (every request answered 503) or drop (connections closed unanswered); nothing is carried out during it. Also settable while running: POST "+emulator.OutagePath+"?kind=...&seconds=N[&start_on=...]")
	fs.DurationVar(&cfg.outage.Duration, "outage-for", time.Minute, "how long the -outage window lasts")
	fs.StringVar(&cfg.outage.StartOn, "outage-start-on", "", "start the -outage window at the first request that matches: any (the first request), write (any request but a GET) or an operationId such as createService (default: at start)")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, errUsage
	}
	if err := checkPostgresFlag(cfg.postgres, stderr); err != nil {
		return cfg, err
	}
	if *outageKind != "" {
		kind, err := emulator.ParseOutageKind(*outageKind)
		if err != nil {
			usagef(stderr, "-outage: %v\n", err)
			return cfg, errUsage
		}
		cfg.outage.Kind = kind
	}
	if fs.NArg() > 0 {
		usagef(stderr, "unexpected arguments: %q\n", fs.Args())
		return cfg, errUsage
	}

	if err := applyTiming(&cfg, fs, *preset, overrides, stderr); err != nil {
		return cfg, err
	}
	for name, p := range map[string]float64{"rate-limit": f.RateLimit, "server-error": f.ServerError, "unavailable": f.Unavailable, "commit-then-fail": f.CommitThenFail} {
		if p < 0 || p > 1 {
			usagef(stderr, "-%s must be a probability between 0 and 1, not %v\n", name, p)
			return cfg, errUsage
		}
	}
	cfg.opts.BearerTokens = commaList(*tokens)
	cfg.opts.Projects = commaList(*projects)
	return cfg, nil
}

// commaList splits a comma-separated flag value into its non-empty, trimmed items (nil when none).
func commaList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// applyTiming sets cfg's timing: the preset, the durations set by their own flags, and -speed.
func applyTiming(cfg *config, fs *flag.FlagSet, preset string, overrides emulator.Timing, stderr io.Writer) error {
	switch preset {
	case "fast":
		cfg.opts.Timing = emulator.FastTiming()
	case "demo":
		cfg.opts.Timing = emulator.DemoTiming()
	case "instant":
		cfg.opts.Timing = emulator.Timing{}
	default:
		usagef(stderr, "-timing must be fast, demo or instant, not %q\n", preset)
		return errUsage
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	for _, d := range timingFlags {
		if !set[d.name] {
			continue
		}
		v := *d.field(&overrides)
		if v < 0 {
			usagef(stderr, "-%s must not be negative\n", d.name)
			return errUsage
		}
		*d.field(&cfg.opts.Timing) = v
	}

	if cfg.speed < 0 || math.IsNaN(cfg.speed) || math.IsInf(cfg.speed, 0) {
		usagef(stderr, "-speed must be a factor >= 0, not %v\n", cfg.speed)
		return errUsage
	}
	cfg.opts.Timing = scaleTiming(cfg.opts.Timing, cfg.speed)
	return nil
}

// timingFlags are the flags that set one duration of the emulator's Timing each.
var timingFlags = []struct {
	name, usage string
	field       func(*emulator.Timing) *time.Duration
}{
	{"service-queued", "QUEUED -> CONFIGURING after create/fork", func(t *emulator.Timing) *time.Duration { return &t.ServiceQueued }},
	{"service-configuring", "CONFIGURING -> READY", func(t *emulator.Timing) *time.Duration { return &t.ServiceConfiguring }},
	{"service-deleting", "DELETING -> DELETED", func(t *emulator.Timing) *time.Duration { return &t.ServiceDeleting }},
	{"service-deleted", "DELETED -> gone (404)", func(t *emulator.Timing) *time.Duration { return &t.ServiceDeleted }},
	{"service-pausing", "stop: PAUSING -> PAUSED", func(t *emulator.Timing) *time.Duration { return &t.ServicePausing }},
	{"service-resuming", "start: RESUMING -> READY", func(t *emulator.Timing) *time.Duration { return &t.ServiceResuming }},
	{"replica-creating", "replica set creating -> active", func(t *emulator.Timing) *time.Duration { return &t.ReplicaCreating }},
	{"replica-resizing", "replica set resizing -> active", func(t *emulator.Timing) *time.Duration { return &t.ReplicaResizing }},
	{"replica-deleting", "replica set deleting -> gone", func(t *emulator.Timing) *time.Duration { return &t.ReplicaDeleting }},
	{"peering-provisioning", "peering pending -> provisioned_id set", func(t *emulator.Timing) *time.Duration { return &t.PeeringProvisioning }},
	{"peering-accepting", "peering provisioned -> active", func(t *emulator.Timing) *time.Duration { return &t.PeeringAccepting }},
}

// scaleTiming multiplies every duration of t by factor.
func scaleTiming(t emulator.Timing, factor float64) emulator.Timing {
	v := reflect.ValueOf(&t).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.Type() == reflect.TypeFor[time.Duration]() {
			f.SetInt(int64(float64(f.Int()) * factor))
		}
	}
	return t
}

// usagef reports a command-line error.
func usagef(w io.Writer, format string, args ...any) {
	_, _ = fmt.Fprintf(w, format, args...)
}

// baseURL is the API base URL for a listener address; an unspecified host becomes 127.0.0.1.
func baseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String() + emulator.BasePath
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + emulator.BasePath
}

// run parses args, serves the emulator and prints its base URL as the first line on stdout. It
// returns when ctx is done (after a graceful shutdown) or the server fails.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if cfg.log {
		cfg.opts.Logf = log.New(stderr, "", log.LstdFlags|log.Lmicroseconds).Printf
	}
	if err := cfg.urlFile.clear(); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	db, stopDB, err := startDatabase(ctx, cfg, stderr)
	if err != nil {
		_ = ln.Close()
		return err
	}
	defer stopDB()
	cfg.opts.Database = db
	emu := emulator.New(cfg.opts)
	persister, err := loadState(emu, cfg.stateFile, stderr)
	if err != nil {
		_ = ln.Close()
		return err
	}
	// Deferred after stopDB: the state is saved before the database goes away.
	defer persister.stop()
	if cfg.outage.Kind != 0 {
		emu.SetOutage(cfg.outage)
	}
	srv := &http.Server{Handler: emu, ReadHeaderTimeout: 10 * time.Second}
	url := baseURL(ln.Addr())
	if _, err := fmt.Fprintln(stdout, url); err != nil {
		_ = ln.Close()
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	defer cfg.urlFile.remove(url)
	if err := cfg.urlFile.write(url); err != nil {
		_ = srv.Close()
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

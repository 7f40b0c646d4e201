package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator"
	"github.com/dbcloud/terraform-provider-dbcloud/internal/emulator/pgbackend"
)

// Flags -postgres and -postgres-bindir: a real PostgreSQL instance behind each service.
const (
	postgresAuto = "auto" // on when the server binaries are found and the read-only extension builds
	postgresOn   = "on"
	postgresOff  = "off"
)

// checkPostgresFlag validates -postgres.
func checkPostgresFlag(mode string, stderr io.Writer) error {
	switch mode {
	case postgresAuto, postgresOn, postgresOff:
		return nil
	}
	usagef(stderr, "-postgres must be auto, on or off, not %q\n", mode)
	return errUsage
}

// startDatabase prepares the PostgreSQL instances the configuration asks for (one per service). It
// answers a nil backend (services as records only) with -postgres off, or with auto when no server
// binaries are found or the read-only extension cannot be built (one line says what is missing and
// how to add it; with on, that is the error). With -state FILE the instances' data directories live in FILE.pgdata, kept
// when the emulator exits. stop waits for the queued database operations and stops every instance.
func startDatabase(ctx context.Context, cfg config, stderr io.Writer) (db emulator.DatabaseBackend, stop func(), err error) {
	logger := log.New(stderr, "", log.LstdFlags|log.Lmicroseconds)
	if cfg.postgres == postgresOff {
		return nil, func() {}, nil
	}
	binDir, err := pgbackend.FindBinDir(cfg.postgresBinDir)
	if err != nil {
		if cfg.postgres == postgresAuto && cfg.postgresBinDir == "" {
			logger.Printf("emulator: no PostgreSQL behind the services (records only): %v", err)
			return nil, func() {}, nil
		}
		return nil, nil, err
	}
	dataDir := ""
	if cfg.stateFile != "" {
		dataDir = cfg.stateFile + ".pgdata"
	}
	m, err := pgbackend.Start(ctx, pgbackend.Options{BinDir: binDir, DataDir: dataDir, Logf: logger.Printf})
	if err != nil {
		if cfg.postgres == postgresAuto && errors.Is(err, pgbackend.ErrNoExtension) {
			logger.Printf("emulator: no PostgreSQL behind the services (records only): %v", err)
			return nil, func() {}, nil
		}
		return nil, nil, fmt.Errorf("%w (-postgres off runs the emulator without it)", err)
	}
	if !m.PgBouncer() {
		logger.Printf("emulator: pgbouncer not installed: connection pooler endpoints are invented (nothing listens on them)")
	}
	if dataDir != "" {
		logger.Printf("emulator: the services' data directories are kept in %s", dataDir)
	}
	b := pgbackend.NewBackend(m)
	stop = func() {
		if err := b.Close(10 * time.Second); err != nil {
			logger.Printf("emulator: %v", err)
		}
		if err := m.Close(); err != nil {
			logger.Printf("emulator: stopping the PostgreSQL instances: %v", err)
		}
	}
	return b, stop, nil
}

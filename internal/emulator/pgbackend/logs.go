package pgbackend

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// An instance's own server log, which the emulator answers as the service's log (GET .../logs).
//
// PostgreSQL's logging collector writes it as CSV (csvlog: one record per message, whatever the
// message holds, in every PostgreSQL version the emulator runs) into the instance's directory, beside
// data/ so that a fork's copy of data/ does not take its source's log, and the same messages as text
// beside it for people (postgresql.log). Connections are logged (log_connections), so the log holds the
// server's start-up, the sessions of the service's users, the errors of the SQL they run, and the
// shutdown when the service is paused. The sessions of the emulator itself (the bootstrap
// superuser over the private socket, the pooler's password lookups, and the connections from that
// socket before they say who they are) are not the service's and are left out.
//
// Manager.Log reads the file incrementally: each call parses only what was written since the last.

const (
	logCSVFile  = "postgresql.csv" // csvlog's file: log_filename with .csv for .log
	logTextFile = "postgresql.log" // the same messages as text (log_destination stderr)
)

// logSettings are the server options of the log of an instance whose directory is dir (none for
// the template, which has no directory of its own).
func logSettings(dir string) []string {
	if dir == "" {
		return nil
	}
	return []string{
		"-c", "logging_collector=on",
		"-c", "log_destination=stderr,csvlog",
		"-c", "log_directory=" + dir,
		"-c", "log_filename=" + logTextFile,
		"-c", "log_rotation_age=0",
		"-c", "log_rotation_size=0",
		"-c", "log_timezone=UTC",
		"-c", "log_connections=on",
	}
}

// startLog is what an instance wrote while starting, for the error of a start that failed: its
// standard error (logPath), then what the logging collector wrote once it ran.
func startLog(logPath, dir string) []byte {
	out, _ := os.ReadFile(logPath)
	if dir != "" {
		if text, err := os.ReadFile(filepath.Join(dir, logTextFile)); err == nil {
			out = append(out, text...)
		}
	}
	return out
}

// LogEntry is one message of an instance's log.
type LogEntry struct {
	At time.Time
	// Severity is PostgreSQL's, with DEBUG for DEBUG1 to DEBUG5: DEBUG, LOG, INFO, NOTICE, WARNING,
	// ERROR, FATAL or PANIC.
	Severity string
	// Message is the message, then its DETAIL and HINT lines when it has them. The statement that
	// failed is not shown: it may carry a password (a failed ALTER ROLE ... PASSWORD).
	Message string
}

// logCache holds the entries read so far of each instance's log.
type logCache struct {
	mu    sync.Mutex
	files map[string]*logFile // by instance name
}

// logFile is what was read of one log file.
type logFile struct {
	ino     uint64
	off     int64 // bytes read and parsed (whole records)
	entries []LogEntry
}

// Log answers the entries of the server log of the instance name, oldest first (none before its
// server first started). It reads only what was written since the last call.
func (m *Manager) Log(name string) ([]LogEntry, error) {
	in := m.Instance(name)
	m.logs.mu.Lock()
	defer m.logs.mu.Unlock()
	if m.logs.files == nil {
		m.logs.files = map[string]*logFile{}
	}
	for n := range m.logs.files { // the logs of removed instances
		if m.Instance(n) == nil {
			delete(m.logs.files, n)
		}
	}
	if in == nil {
		return nil, fmt.Errorf("pgbackend: no instance %s", name)
	}
	f := m.logs.files[name]
	if f == nil {
		f = &logFile{}
		m.logs.files[name] = f
	}
	err := f.readFrom(filepath.Join(in.dir, logCSVFile), in.pathsHidden())
	return f.entries[:len(f.entries):len(f.entries)], err
}

// pathsHidden replaces the paths of this machine that messages name (the data directory, say in
// the line of pg_hba.conf that let a login in; the socket directory) with the paths of a server of
// the live service's kind: the log shows the service, not the machine the emulator runs on.
func (in *Instance) pathsHidden() *strings.Replacer {
	return strings.NewReplacer(in.data, "/var/lib/postgresql/data", in.sock, "/var/run/postgresql",
		in.dir, "/var/lib/postgresql", in.m.dir, "/var/lib/postgresql")
}

// readFrom parses the whole records written to path since the last read (from the start when the
// file is another one, or shorter than what was read), with the machine's paths hidden.
func (f *logFile) readFrom(path string, hide *strings.Replacer) error {
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pgbackend: reading the server log: %w", err)
	}
	defer func() { _ = fh.Close() }()
	st, err := fh.Stat()
	if err != nil {
		return fmt.Errorf("pgbackend: reading the server log: %w", err)
	}
	var ino uint64
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		ino = sys.Ino
	}
	if ino != f.ino || st.Size() < f.off {
		*f = logFile{ino: ino}
	}
	if _, err := fh.Seek(f.off, io.SeekStart); err != nil {
		return fmt.Errorf("pgbackend: reading the server log: %w", err)
	}
	b, err := io.ReadAll(fh)
	if err != nil {
		return fmt.Errorf("pgbackend: reading the server log: %w", err)
	}
	// Whole lines only, and whole records of them: a record still being written (cut at a newline in
	// a quoted field, or not ended yet) waits for the next read.
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	start := f.off
	for {
		rec, err := r.Read()
		if err != nil { // io.EOF, or the record being written
			break
		}
		f.off = start + r.InputOffset()
		if e, ok := parseLogRecord(rec); ok {
			e.Message = hide.Replace(e.Message)
			f.entries = append(f.entries, e)
		}
	}
	return nil
}

// The fields of a csvlog record that the service's log uses (the same places in every version).
const (
	csvTime       = 0  // log_time, "2025-01-02 15:04:05.123 UTC" with log_timezone=UTC
	csvUser       = 1  // user_name
	csvFrom       = 4  // connection_from: host:port, or [local] for the unix socket
	csvSeverity   = 11 // error_severity
	csvMessage    = 13 // message
	csvDetail     = 14 // detail
	csvHint       = 15 // hint
	csvTimeLayout = "2006-01-02 15:04:05.000 MST"
)

// parseLogRecord reads one csvlog record; ok is false for a record that is not one, or for a message
// of the emulator's own sessions.
func parseLogRecord(rec []string) (LogEntry, bool) {
	if len(rec) <= csvHint || rec[csvMessage] == "" {
		return LogEntry{}, false
	}
	switch user := rec[csvUser]; {
	case user == superuser || user == poolerAuthUser:
		return LogEntry{}, false
	case rec[csvFrom] == "[local]" && user == "":
		return LogEntry{}, false
	}
	at, err := time.Parse(csvTimeLayout, rec[csvTime])
	if err != nil {
		return LogEntry{}, false
	}
	msg := rec[csvMessage]
	if rec[csvDetail] != "" {
		msg += "\nDETAIL: " + rec[csvDetail]
	}
	if rec[csvHint] != "" {
		msg += "\nHINT: " + rec[csvHint]
	}
	return LogEntry{At: at.UTC(), Severity: apiSeverity(rec[csvSeverity]), Message: msg}, true
}

// apiSeverity is the severity the API shows for PostgreSQL's: DEBUG for DEBUG1 to DEBUG5, the
// others as they are.
func apiSeverity(s string) string {
	if strings.HasPrefix(s, "DEBUG") {
		return "DEBUG"
	}
	return s
}

// ServiceLog calls each for every entry of the log of the service's instance, oldest first, on node
// "0" (the primary), and reports whether the service has an instance (emulator.LogBackend). A log
// that cannot be read is logged, with what was read of it answered.
func (b *Backend) ServiceLog(serviceID string, each func(at time.Time, severity, node, message string)) bool {
	entries, err := b.m.Log(serviceID)
	if err != nil && b.m.Instance(serviceID) == nil {
		return false
	}
	if err != nil {
		b.logf("%v", err)
	}
	for _, e := range entries {
		each(e.At, e.Severity, "0", e.Message)
	}
	return true
}

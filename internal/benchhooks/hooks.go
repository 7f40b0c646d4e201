//go:build unix && benchhooks

package benchhooks

import (
	"fmt"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Benchmark hooks, compiled only with -tags benchhooks (scripts/bench.sh builds so), and off unless
// their environment variable is set:
//
//	DBCLOUD_CPUPROFILE=path  writes a pprof CPU profile of the process to path ("%p" becomes the pid)
//	DBCLOUD_RUSAGE=path      appends "pid user_ms system_ms maxrss_kib wall_ms" to path at exit
//
// Terraform starts the provider several times per command, and shuts it down gracefully, so each
// process writes its own figures when providerserver.Serve returns.
func Start() (stop func()) {
	start := time.Now()
	var stops []func()
	if path := os.Getenv("DBCLOUD_CPUPROFILE"); path != "" {
		path = strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				stops = append(stops, func() { pprof.StopCPUProfile(); _ = f.Close() })
			} else {
				_ = f.Close()
			}
		}
	}
	if path := os.Getenv("DBCLOUD_RUSAGE"); path != "" {
		stops = append(stops, func() {
			var ru syscall.Rusage
			if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
				return
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
			if err != nil {
				return
			}
			ms := func(tv syscall.Timeval) int64 { return tv.Sec*1000 + int64(tv.Usec)/1000 } //nolint:unconvert // Usec is int32 on some platforms
			_, _ = fmt.Fprintf(f, "%d %d %d %d %d\n", os.Getpid(), ms(ru.Utime), ms(ru.Stime), ru.Maxrss, time.Since(start).Milliseconds())
			_ = f.Close()
		})
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

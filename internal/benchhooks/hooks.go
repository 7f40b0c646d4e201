//go:build unix && benchhooks

package benchhooks

import (
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Benchmark hooks, compiled only with -tags benchhooks (scripts/bench.sh builds so), and off unless
// their environment variable is set:
//
//	DBCLOUD_CPUPROFILE=path   writes a pprof CPU profile of the process to path ("%p" becomes the pid)
//	DBCLOUD_HEAPPROFILE=path  writes a pprof heap profile of the process to path at exit (alloc_space:
//	                          what the process allocated), and to path.peak the heap profile of when its
//	                          live heap was largest (inuse_space: what it held then; written each time
//	                          the live heap grew by a quarter, so about a dozen times in a plan)
//	DBCLOUD_RUSAGE=path       appends "pid user_ms system_ms peak_rss_kib wall_ms peak_live_heap_kib
//	                          allocated_kib max_goroutines" to path at exit
//
// Terraform starts the provider several times per command, and shuts it down gracefully, so each
// process writes its own figures when providerserver.Serve returns.
func Start() (stop func()) {
	start := time.Now()
	var stops []func()
	if path := os.Getenv("DBCLOUD_CPUPROFILE"); path != "" {
		if f, err := os.Create(withPid(path)); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				stops = append(stops, func() { pprof.StopCPUProfile(); _ = f.Close() })
			} else {
				_ = f.Close()
			}
		}
	}
	heapPath := os.Getenv("DBCLOUD_HEAPPROFILE")
	rusagePath := os.Getenv("DBCLOUD_RUSAGE")
	if heapPath != "" || rusagePath != "" {
		w := watchHeap(heapPath)
		stops = append(stops, w.stop)
		if heapPath != "" {
			stops = append(stops, func() { writeHeap(withPid(heapPath)) })
		}
		if rusagePath != "" {
			stops = append(stops, func() { writeRusage(rusagePath, start, w) })
		}
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

func withPid(path string) string { return strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid())) }

// writeRusage appends the process's figures to path.
func writeRusage(path string, start time.Time, w *heapWatch) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	ms := func(tv syscall.Timeval) int64 { return tv.Sec*1000 + int64(tv.Usec)/1000 } //nolint:unconvert // Usec is int32 on some platforms
	live, allocated, goroutines := w.figures()
	_, _ = fmt.Fprintf(f, "%d %d %d %d %d %d %d %d\n", os.Getpid(), ms(ru.Utime), ms(ru.Stime), peakRSS(ru),
		time.Since(start).Milliseconds(), live>>10, allocated>>10, goroutines)
	_ = f.Close()
}

// peakRSS is the process's peak resident set in KiB: VmHWM of /proc/self/status where there is one.
// Not getrusage's ru_maxrss alone: Linux carries the parent's high-water mark over an exec (Go starts a
// child with vfork semantics), so a plugin's ru_maxrss is at least Terraform's RSS when it started
// the plugin.
func peakRSS(ru syscall.Rusage) int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				if kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil {
					return kib
				}
			}
		}
	}
	return int64(ru.Maxrss) //nolint:unconvert // Maxrss is int32 on some platforms
}

// writeHeap writes the heap profile (at exit: after the server stopped, what it held is garbage, so
// the in-use figures that matter are those of the .peak profile).
func writeHeap(path string) {
	if f, err := os.Create(path); err == nil {
		_ = pprof.Lookup("heap").WriteTo(f, 0)
		_ = f.Close()
	}
}

// heapWatch samples, every 50 ms, the live heap (what the last collection marked, runtime/metrics)
// and the goroutines, and keeps the largest of each; with a profile path, it writes the heap profile
// to path.peak whenever the live heap grew by a quarter since the last one written.
type heapWatch struct {
	done chan struct{}
	wg   sync.WaitGroup
	path string

	mu         sync.Mutex
	live       uint64
	written    uint64 // the live heap when path.peak was last written
	goroutines int
}

func watchHeap(path string) *heapWatch {
	w := &heapWatch{done: make(chan struct{}), path: path}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

func (w *heapWatch) sample() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	n := runtime.NumGoroutine()
	live := s[0].Value.Uint64()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.live = max(w.live, live)
	w.goroutines = max(w.goroutines, n)
	if w.path != "" && live > w.written+w.written/4 {
		w.written = live
		if f, err := os.Create(withPid(w.path) + ".peak"); err == nil {
			_ = pprof.Lookup("heap").WriteTo(f, 0)
			_ = f.Close()
		}
	}
}

func (w *heapWatch) stop() {
	close(w.done)
	w.wg.Wait()
	w.sample()
}

// figures are the largest live heap and goroutine count seen, and the bytes allocated over the
// process's life.
func (w *heapWatch) figures() (live, allocated uint64, goroutines int) {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.live, s[0].Value.Uint64(), w.goroutines
}

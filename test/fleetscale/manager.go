package fleetscale

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// manager is one life of the manager process.
type manager struct {
	cmd     *exec.Cmd
	metrics string
	// last readings, taken just before it is stopped.
	cpuSeconds float64
	peakRSS    int64
	reconciles map[string]float64
	// reconcileSeconds is the time spent in each controller's reconciles.
	reconcileSeconds map[string]float64
	requests         float64
	pprof            string // base URL of the manager's /debug/pprof
	// peakAnon is the largest anonymous RSS (Go's heap and runtime) seen by sampleRSS, and
	// fileAtPeak the file-backed RSS (the binary's pages) at that sample.
	peakAnon, fileAtPeak atomic.Int64
	// exited closes when the process has been reaped: its pid may then be another process's.
	exited chan struct{}
}

// sampleRSS reads the process's anonymous and file-backed RSS every two seconds until it
// exits: VmHWM says how high RSS went, not what it was made of.
func (m *manager) sampleRSS() {
	for {
		sizes, err := statusSizes(m.cmd.Process.Pid)
		if err != nil {
			return
		}
		anon, file := sizes["RssAnon"], sizes["RssFile"]
		select {
		case <-m.exited:
			return // read after the exit: not this process's figures
		default:
		}
		if anon > m.peakAnon.Load() {
			m.peakAnon.Store(anon)
			m.fileAtPeak.Store(file)
		}
		select {
		case <-m.exited:
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// statusSizes are the sizes /proc/<pid>/status gives ("VmHWM:   1234 kB"), in bytes, by name.
func statusSizes(pid int) (map[string]int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	sizes := map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if v, kb := strings.CutSuffix(strings.TrimSpace(value), " kB"); ok && kb {
			n, _ := strconv.ParseInt(v, 10, 64)
			sizes[name] = n * 1024
		}
	}
	return sizes, nil
}

// profile writes a CPU profile of the next seconds (30 when 0) of the manager to file.
func (m *manager) profile(ctx context.Context, file string, seconds int, say func(string, ...any)) {
	if seconds <= 0 {
		seconds = 30
	}
	if err := m.fetchProfile(ctx, fmt.Sprintf("profile?seconds=%d", seconds), file); err != nil {
		say("CPU profile: %v", err)
		return
	}
	say("CPU profile of %d s of the restarted manager: %s (go tool pprof -top %s)", seconds, file, file)
}

// heapProfile writes the manager's live heap (after a collection) to file.
func (m *manager) heapProfile(ctx context.Context, file string, say func(string, ...any)) {
	if err := m.fetchProfile(ctx, "heap?gc=1", file); err != nil {
		say("heap profile: %v", err)
		return
	}
	say("heap profile of the manager at the end: %s (go tool pprof -sample_index=inuse_space -top %s)", file, file)
}

// fetchProfile writes what the manager's /debug/pprof/<path> returns to file.
func (m *manager) fetchProfile(ctx context.Context, path, file string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, m.pprof+"/"+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

func startManager(ctx context.Context, o Options, kubeconfig string, life int) (*manager, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pprofPort, err := freePort()
	if err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(o.WorkDir, fmt.Sprintf("manager-%d.log", life)))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.ManagerBin, "--kubeconfig", kubeconfig,
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", port), "--health-probe-bind-address", "0",
		"--pprof-bind-address", fmt.Sprintf("127.0.0.1:%d", pprofPort),
		"--lease-namespace", leaseNS, "--dataplane-image", "spiralbench/dataplane:kwok", "--fleet-node-writes", "--bench-workers", "8", "--zap-log-level", "error")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if o.ManagerGoMemLimit != "" {
		cmd.Env = append(cmd.Environ(), "GOMEMLIMIT="+o.ManagerGoMemLimit)
	}
	if o.ManagerGoDebug != "" {
		cmd.Env = append(cmd.Environ(), "GODEBUG="+o.ManagerGoDebug)
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	m := &manager{cmd: cmd, metrics: fmt.Sprintf("http://127.0.0.1:%d/metrics", port), pprof: fmt.Sprintf("http://127.0.0.1:%d/debug/pprof", pprofPort),
		exited: make(chan struct{})}
	go m.sampleRSS()
	for i := 0; i < 100; i++ {
		if _, err := m.scrape(); err == nil {
			return m, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return m, nil
}

// stop reads the counters, then kills (SIGKILL: a crash) or stops (SIGTERM) the process.
func (m *manager) stop(kill bool) {
	if m.cmd.Process == nil {
		return
	}
	m.read()
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = m.cmd.Process.Signal(sig)
	_ = m.cmd.Wait()
	close(m.exited)
}

// account adds this life's readings to the result.
func (m *manager) account(r *Result) {
	r.CPUSeconds += m.cpuSeconds
	if m.peakRSS > r.PeakRSSBytes {
		r.PeakRSSBytes, r.PeakAnonBytes, r.FileAtPeakBytes = m.peakRSS, m.peakAnon.Load(), m.fileAtPeak.Load()
	}
	r.APIRequests += m.requests
	for k, v := range m.reconciles {
		r.Reconciles[k] += v
	}
	for k, v := range m.reconcileSeconds {
		if r.ReconcileSeconds == nil {
			r.ReconcileSeconds = map[string]float64{}
		}
		r.ReconcileSeconds[k] += v
	}
}

func (m *manager) read() {
	pid := m.cmd.Process.Pid
	// The scrape first, so its CPU and memory count: a scrape is part of the manager's life
	// (Prometheus makes one every 15-60 s), and at 10,000 nodes its peak was the manager's
	// (docs/benchmarks/fleet.md).
	text, err := m.scrape()
	if data, serr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); serr == nil {
		// Fields after the command name (which is in parentheses): utime is 14th, stime 15th.
		fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
		ut, _ := strconv.ParseFloat(fields[11], 64)
		st, _ := strconv.ParseFloat(fields[12], 64)
		m.cpuSeconds = (ut + st) / 100 // USER_HZ is 100 on Linux
	}
	if sizes, serr := statusSizes(pid); serr == nil {
		m.peakRSS = sizes["VmHWM"]
	}
	if err == nil {
		m.reconciles, m.reconcileSeconds, m.requests = map[string]float64{}, map[string]float64{}, 0
		for _, line := range strings.Split(text, "\n") {
			switch {
			case strings.HasPrefix(line, "controller_runtime_reconcile_total{"):
				ctrl := label(line, "controller")
				m.reconciles[ctrl] += value(line)
			case strings.HasPrefix(line, "controller_runtime_reconcile_time_seconds_sum{"):
				m.reconcileSeconds[label(line, "controller")] += value(line)
			case strings.HasPrefix(line, "rest_client_requests_total{"):
				m.requests += value(line)
			}
		}
	}
}

func (m *manager) scrape() (string, error) {
	resp, err := http.Get(m.metrics)
	if err != nil {
		return "", err
	}
	defer func() { _ = resp.Body.Close() }()
	var b strings.Builder
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		b.WriteString(s.Text())
		b.WriteByte('\n')
	}
	return b.String(), s.Err()
}

func label(line, name string) string {
	i := strings.Index(line, name+"=\"")
	if i < 0 {
		return ""
	}
	rest := line[i+len(name)+2:]
	return rest[:strings.IndexByte(rest, '"')]
}

func value(line string) float64 {
	f := strings.Fields(line)
	v, _ := strconv.ParseFloat(f[len(f)-1], 64)
	return v
}

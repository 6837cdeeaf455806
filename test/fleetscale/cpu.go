package fleetscale

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// childrenCPU is the CPU seconds (user + system) of this process's children by command name
// (kube-apiserver, etcd, kube-scheduler, kwok; the manager is counted apart) and of the
// harness itself ("harness"), minus what since held at the start.
func childrenCPU(since map[string]float64) map[string]float64 {
	out := map[string]float64{}
	self := strconv.Itoa(os.Getpid())
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		text := string(data)
		open, end := strings.IndexByte(text, '('), strings.LastIndexByte(text, ')')
		if open < 0 || end < open {
			continue
		}
		comm := text[open+1 : end]
		// Fields after the command name: state is 3rd, ppid 4th, utime 14th, stime 15th.
		fields := strings.Fields(text[end+2:])
		if len(fields) < 13 || fields[1] != self || comm == "manager" {
			continue
		}
		ut, _ := strconv.ParseFloat(fields[11], 64)
		st, _ := strconv.ParseFloat(fields[12], 64)
		out[comm] += (ut + st) / 100 // USER_HZ is 100 on Linux
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		out["harness"] = float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	}
	for k, v := range since {
		out[k] -= v
	}
	return out
}

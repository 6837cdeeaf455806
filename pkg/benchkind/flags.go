package benchkind

import (
	"strconv"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Helpers the kinds' flag renderers share.

// Itoa writes an integer flag value.
func Itoa[T ~int32 | ~int](v T) string { return strconv.Itoa(int(v)) }

// MemoryFlag is the data plane's --memory value for where buffers live.
func MemoryFlag(m sbv1.MemoryKind) string {
	switch m {
	case sbv1.MemoryHostPinned:
		return "host_pinned"
	case sbv1.MemoryDevice:
		return "device"
	}
	return "host"
}

// PCIDeviceEnv is the variable the SR-IOV and host-device plugins set for a resource:
// PCIDEVICE_ followed by the resource name upper-cased, with / . - as _.
func PCIDeviceEnv(resource string) string {
	return "PCIDEVICE_" + strings.NewReplacer("/", "_", ".", "_", "-", "_").Replace(strings.ToUpper(resource))
}

// socketFlags renders spec.socket for the socket kinds; --tcp-nodelay only when tcp says so.
func socketFlags(spec *sbv1.SpiralBenchSpec, tcp bool) []string {
	s := spec.Socket
	if s == nil {
		return nil
	}
	var a []string
	if s.TCPNoDelay && tcp {
		a = append(a, "--tcp-nodelay")
	}
	if s.UDPOffload == "GSO" || s.UDPOffload == "GSOAndGRO" {
		a = append(a, "--udp-gso")
	}
	if s.UDPOffload == "GRO" || s.UDPOffload == "GSOAndGRO" {
		a = append(a, "--udp-gro")
	}
	if s.BufferBytes > 0 {
		a = append(a, "--socket-buffer-bytes", Itoa(s.BufferBytes))
	}
	if s.Mode == sbv1.SocketModeLatency {
		wait := "blocking"
		if s.Wait == sbv1.SocketWaitSpin {
			wait = "spin"
		}
		a = append(a, "--mode", "latency", "--wait", wait)
		if s.BusyPollMicroseconds > 0 {
			a = append(a, "--busy-poll-us", Itoa(s.BusyPollMicroseconds))
		}
	}
	return a
}

// describePairs names a socket cell's pairs.
func describePairs(p sbv1.CellParameters) string {
	if p.Pairs == 1 {
		return " x 1 pair"
	}
	return " x " + Itoa(p.Pairs) + " pairs"
}

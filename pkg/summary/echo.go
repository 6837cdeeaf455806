package summary

import (
	"fmt"
	"strings"
)

// Echo is the cell a pod was asked to measure, as its summary echoes it back: the data plane's
// transport, the payload, the pairs and the target of all pairs together.
type Echo struct {
	Transport    string
	PayloadBytes int64 // 0: not checked (kinds that sweep sizes inside one cell)
	Pairs        int64
	TargetMbps   int64
}

// Mismatch says how a summary's echo differs from the planned cell, "" when it does not: a pod
// that measured something else (a stale image, a wrong flag) measured no part of this cell.
func (s Summary) Mismatch(want Echo) string {
	var d []string
	if s.Transport != want.Transport {
		d = append(d, fmt.Sprintf("transport %q, planned %q", s.Transport, want.Transport))
	}
	if want.PayloadBytes > 0 && s.PayloadBytes != want.PayloadBytes {
		d = append(d, fmt.Sprintf("payload %d B, planned %d B", s.PayloadBytes, want.PayloadBytes))
	}
	if s.Pairs != want.Pairs {
		d = append(d, fmt.Sprintf("%d pairs, planned %d", s.Pairs, want.Pairs))
	}
	if s.TargetMbps != want.TargetMbps {
		d = append(d, fmt.Sprintf("target %d Mb/s, planned %d Mb/s", s.TargetMbps, want.TargetMbps))
	}
	return strings.Join(d, ", ")
}

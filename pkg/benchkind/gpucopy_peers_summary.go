package benchkind

import (
	"encoding/json"
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// copyPeers is the GPU-to-GPU part of a copy bench's summary, beside its gpus and rows
// (dataplane/src/transports/gpucopy/peer_summary.hpp): matrix rows and columns follow Devices.
type copyPeers struct {
	Devices  []int32      `json:"devices"`
	Links    []peerLink   `json:"links"`
	Peer     []peerMatrix `json:"peer"`
	Host     []hostCopies `json:"host"`
	PeerNote string       `json:"peer_note"`
	// Trimmed counts what the data plane left out to fit the termination message.
	Trimmed *struct {
		Rows int `json:"rows"`
		Peer int `json:"peer"`
	} `json:"trimmed"`
}

// peerLink is [a, b, "NV18", p2p 0/1].
type peerLink struct {
	A, B int32
	Path string
	P2P  int
}

// peerMatrix is ["ce"|"sm", "uni"|"bi", bytes, [[mbps, ...], ...]].
type peerMatrix struct {
	Method, Mode string
	Bytes        int64
	Rows         [][]int64
}

// hostCopies is ["h2d"|"d2h", bytes, [alone mbps...], [together mbps...], aggregate mbps].
type hostCopies struct {
	Direction       string
	Bytes           int64
	Alone, Together []int64
	Aggregate       int64
}

var (
	summaryPeerMethods = map[string]sbv1.CopyPeerMethod{"ce": sbv1.CopyPeerCE, "sm": sbv1.CopyPeerSM}
	summaryPeerModes   = map[string]sbv1.CopyPeerMode{"uni": sbv1.CopyPeerUnidirectional, "bi": sbv1.CopyPeerBidirectional}
	summaryHostDirs    = map[string]sbv1.CopyDirection{"h2d": "H2D", "d2h": "D2H"}
)

// array reads a JSON array of exactly len(dst) elements into dst, in order.
func array(b []byte, what string, dst ...any) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != len(dst) {
		return fmt.Errorf("%s %s: want an array of %d", what, b, len(dst))
	}
	for i, d := range dst {
		if err := json.Unmarshal(raw[i], d); err != nil {
			return fmt.Errorf("%s %s: %w", what, b, err)
		}
	}
	return nil
}

// UnmarshalJSON reads the four-element array form.
func (l *peerLink) UnmarshalJSON(b []byte) error {
	return array(b, "gpucopy link", &l.A, &l.B, &l.Path, &l.P2P)
}

// UnmarshalJSON reads the four-element array form; the method and mode must be known.
func (m *peerMatrix) UnmarshalJSON(b []byte) error {
	if err := array(b, "gpucopy peer matrix", &m.Method, &m.Mode, &m.Bytes, &m.Rows); err != nil {
		return err
	}
	if summaryPeerMethods[m.Method] == "" || summaryPeerModes[m.Mode] == "" {
		return fmt.Errorf("gpucopy peer matrix: unknown method %q or mode %q", m.Method, m.Mode)
	}
	return nil
}

// UnmarshalJSON reads the five-element array form; the direction must be h2d or d2h.
func (h *hostCopies) UnmarshalJSON(b []byte) error {
	if err := array(b, "gpucopy host aggregate", &h.Direction, &h.Bytes, &h.Alone, &h.Together, &h.Aggregate); err != nil {
		return err
	}
	if summaryHostDirs[h.Direction] == "" {
		return fmt.Errorf("gpucopy host aggregate: unknown direction %q", h.Direction)
	}
	return nil
}

// addTo puts the part into the status' copies, within the CRD's bounds (8 GPUs, 28 pairs,
// 16 matrices, 2 directions).
func (p *copyPeers) addTo(r *sbv1.CopyResult) {
	for _, l := range p.Links {
		if len(r.PeerLinks) < 28 {
			r.PeerLinks = append(r.PeerLinks, sbv1.GPUPeerLink{DeviceA: l.A, DeviceB: l.B, Path: clip(l.Path, 12), PeerAccess: l.P2P != 0})
		}
	}
	for _, m := range p.Peer {
		if len(r.PeerMatrices) < 16 {
			r.PeerMatrices = append(r.PeerMatrices, sbv1.CopyPeerMatrix{Method: summaryPeerMethods[m.Method], Mode: summaryPeerModes[m.Mode],
				Bytes: m.Bytes, MegabytesPerSecond: square(m.Rows, 8)})
		}
	}
	for _, h := range p.Host {
		if len(r.HostAggregate) < 2 {
			r.HostAggregate = append(r.HostAggregate, sbv1.CopyHostAggregate{Direction: summaryHostDirs[h.Direction], Bytes: h.Bytes,
				AloneMBps: first(h.Alone, 8), TogetherMBps: first(h.Together, 8), AggregateMBps: h.Aggregate})
		}
	}
	note := p.PeerNote
	if t := p.Trimmed; t != nil && t.Peer > 0 {
		if note != "" {
			note += "; "
		}
		note += fmt.Sprintf("%d matrices left out of the summary (the record has them)", t.Peer)
	}
	r.PeerNote = clip(note, 240)
}

func first[T any](xs []T, n int) []T {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

// square keeps at most n rows of at most n values.
func square(rows [][]int64, n int) [][]int64 {
	rows = first(rows, n)
	out := make([][]int64, len(rows))
	for i, row := range rows {
		out[i] = first(row, n)
	}
	return out
}

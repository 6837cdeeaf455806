// Package liveview turns the data plane's once-a-second progress lines into seed 004's live
// view: a TX and an RX bar per pair, queue or queue pair, and NOW and PEAK totals (TX, RX,
// full duplex), with the NIC's PHY counters where the data plane can read them. sbctl watch
// feeds it the cell pods' logs, streamed through the API server (no exec, no extra port).
package liveview

import (
	"bytes"
	"encoding/json"
)

// Progress is one progress line of one data plane process, as it prints it on stdout once a
// second while it measures:
//
//	{"event":"progress","role":"server","unit":"pair","t_ms":3000,"streams":[{"id":0,"tx_bytes":0,"rx_bytes":1250000000,"drops":0}],
//	 "phy":{"device":"enp1s0f0np0","tx_bytes":0,"rx_bytes":1262000000,"rx_missed":0}}
//
// (the data plane's stdout is JSON lines, each with an "event": ready, progress, result).
//
// Counters are cumulative since the measurement started, so a lost line loses no bytes.
type Progress struct {
	// Role is server (receives) or client (sends); raw's one process is both.
	Role string `json:"role"`
	// Unit names a stream: pair (sockets), queue (raw), qp (RoCE).
	Unit string `json:"unit"`
	// TMillis is the time since the measurement started.
	TMillis int64    `json:"t_ms"`
	Streams []Stream `json:"streams"`
	PHY     *PHY     `json:"phy,omitempty"`
}

// Stream is one pair's, queue's or queue pair's counters.
type Stream struct {
	ID      int   `json:"id"`
	TXBytes int64 `json:"tx_bytes"`
	RXBytes int64 `json:"rx_bytes"`
	Drops   int64 `json:"drops"`
}

// PHY is the NIC's own byte counters (ethtool's *_bytes_phy), which see RDMA and DPDK traffic
// the kernel's counters miss.
type PHY struct {
	Device   string `json:"device"`
	TXBytes  int64  `json:"tx_bytes"`
	RXBytes  int64  `json:"rx_bytes"`
	RXMissed int64  `json:"rx_missed"`
}

var marker = []byte(`"event":"progress"`)

// Parse reads a log line; ok is false for any other line (logs carry other output too). Keys
// may come in any order (nlohmann::json writes them sorted).
func Parse(line []byte) (Progress, bool) {
	line = bytes.TrimSpace(line)
	if !bytes.HasPrefix(line, []byte("{")) || !bytes.Contains(line, marker) {
		return Progress{}, false
	}
	var p struct {
		Event string `json:"event"`
		Progress
	}
	if err := json.Unmarshal(line, &p); err != nil || p.Event != "progress" {
		return Progress{}, false
	}
	return p.Progress, true
}

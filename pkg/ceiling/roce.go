package ceiling

import (
	"fmt"
	"strings"
)

// RoCEv2 headers (InfiniBand Architecture Specification Vol. 1 Release 1.4, chapter 9 and
// Annex A17 "RoCEv2"): every packet is Ethernet / IPv4 / UDP (port 4791) / BTH / [extension
// headers] / data / ICRC.
const (
	// BTHBytes: the base transport header (IBTA Vol. 1 section 9.2).
	BTHBytes = 12
	// RETHBytes: the RDMA extended transport header, on the first packet of an RDMA WRITE and
	// on an RDMA READ request (IBTA Vol. 1 section 9.3, extended transport headers).
	RETHBytes = 16
	// AETHBytes: the ACK extended transport header, on the first and last RDMA READ response
	// packets (IBTA Vol. 1 section 9.3).
	AETHBytes = 4
	// ImmDtBytes: immediate data, on the last packet of a WRITE or SEND with immediate (IBTA
	// Vol. 1 section 9.3.6); the data plane's Write is RDMA WRITE with immediate.
	ImmDtBytes = 4
	// ICRCBytes: the invariant CRC (IBTA Vol. 1 section 7.8; Annex A17 keeps it for RoCEv2).
	ICRCBytes = 4
	// roceFixedBytes is each packet's IPv4 + UDP + BTH + ICRC.
	roceFixedBytes = IPv4HeaderBytes + UDPHeaderBytes + BTHBytes + ICRCBytes
)

// roceMTUs are the InfiniBand path MTUs (IBTA Vol. 1: 256, 512, 1024, 2048 and 4096 bytes).
var roceMTUs = []int64{4096, 2048, 1024, 512, 256}

// roceMTUOverheadBytes is what Linux takes off the netdev MTU before picking the largest IB
// MTU that fits: GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4 (include/rdma/ib_addr.h,
// iboe_get_mtu). 1500 gives 1024, 9000 gives 4096.
const roceMTUOverheadBytes = 40 + 8 + 12 + 4 + 28 + 4

// RoCEPathMTU is the RDMA path MTU of an Ethernet MTU, as the Linux RDMA stack picks it.
func RoCEPathMTU(ethernetMTU int32) int64 {
	room := mtuOrDefault(ethernetMTU) - roceMTUOverheadBytes
	for _, m := range roceMTUs {
		if m <= room {
			return m
		}
	}
	return 256
}

// roceTrain is one RDMA message of payload bytes split into path-MTU packets. Every packet
// carries the fixed headers; the verb's extension headers ride where IBTA puts them: WRITE
// (with immediate) a RETH on the first packet and ImmDt on the last; READ responses an AETH on
// the first and the last (the READ request and its RETH go the other way); SEND none. A
// one-packet message carries all of its verb's headers. The NIC moves only the data across
// PCIe (dma), the headers being its own.
func roceTrain(payload int64, verb string, pathMTU int64) train {
	verb = strings.ToLower(verb)
	if verb == "" {
		verb = "send"
	}
	var first, last int64 // extension bytes of the first and the last packet
	switch verb {
	case "write":
		first, last = RETHBytes, ImmDtBytes
	case "read":
		first, last = AETHBytes, AETHBytes
	}
	n := max((payload+pathMTU-1)/pathMTU, 1)
	t := train{counted: payload}
	if n == 1 {
		t.groups = []packetGroup{{1, roceFixedBytes + first + last + payload, payload}}
	} else {
		lastData := payload - (n-1)*pathMTU
		t.groups = []packetGroup{{1, roceFixedBytes + first + pathMTU, pathMTU}}
		if n > 2 {
			t.groups = append(t.groups, packetGroup{n - 2, roceFixedBytes + pathMTU, pathMTU})
		}
		t.groups = append(t.groups, packetGroup{1, roceFixedBytes + last + lastData, lastData})
	}
	t.model = fmt.Sprintf("RoCEv2 %s of %d B in %d packets of path MTU %d: %d B on the wire", verb, payload, n, pathMTU, t.wireBytes())
	return t
}

// MaxRoCEPayloadMbps is the most RDMA payload a link of speedMbps carries, in Mb/s, with
// messages of payload bytes of a verb ("Send", "Write", "Read") at an RDMA path MTU.
func MaxRoCEPayloadMbps(speedMbps int64, payload int64, verb string, pathMTU int64) float64 {
	return wireLimitMbps(speedMbps, roceTrain(payload, verb, pathMTU))
}

package ceiling

import "fmt"

// PCIeLink is one device's PCIe link as NVML or sysfs reports it now.
type PCIeLink struct {
	// Generation 1 to 6; 0 unknown.
	Generation int
	// Width in lanes; 0 unknown.
	Width int
	// MaxPayloadBytes is the link's Max_Payload_Size; 0 assumes DefaultMaxPayloadBytes.
	MaxPayloadBytes int
	// HeaderBytes of a memory TLP; 0 assumes a 4DW header (64-bit addresses, as DMA above 4 GiB
	// uses): 16.
	HeaderBytes int
}

// DefaultMaxPayloadBytes is assumed when the MPS is not known: what most server root ports
// negotiate (the spec allows 128 to 4096 B: PCIe Base Specification, Device Control register).
const DefaultMaxPayloadBytes = 256

// pcieGigaTransfers is each generation's per-lane signalling rate in GT/s (PCIe Base
// Specification 1.0a to 6.0, section 4.2 each; Gen6 is 32 GBaud PAM4, 64 GT/s).
var pcieGigaTransfers = map[int]float64{1: 2.5, 2: 5, 3: 8, 4: 16, 5: 32, 6: 64}

// pcieEncoding is the share of the transferred bits that carry TLP and DLLP bytes:
//   - Gen1-2: 8b/10b (PCIe Base Specification 2.0 section 4.2.1).
//   - Gen3-5: 128b/130b (PCIe Base Specification 3.0 section 4.2.2).
//   - Gen6 flit mode: a 256-byte flit holds 236 TLP bytes, 6 DLP bytes, 8 CRC bytes and 6 FEC
//     bytes (PCIe Base Specification 6.0, chapter 4, Flit Mode; D. Das Sharma, "PCI Express 6.0
//     Specification", IEEE Micro 41(1), 2021). 242/256 would count the DLP bytes, which carry
//     what DLLPs carry in earlier generations; TLPs get 236/256.
func pcieEncoding(gen int) float64 {
	switch {
	case gen <= 2:
		return 8.0 / 10
	case gen <= 5:
		return 128.0 / 130
	}
	return 236.0 / 256
}

// pcieLinkOverheadBytes is what the data link and physical layers add to each TLP before
// Gen6: Gen1-2 STP 1 + sequence number 2 + LCRC 4 + END 1 (PCIe Base Specification 2.0
// chapter 3, data link layer, and section 4.2.1, framing); Gen3-5 the 4-byte STP token, which holds the 12-bit sequence
// number, + LCRC 4 (PCIe Base Specification 3.0 section 4.2.2, framing tokens). Both are 8. Gen6 flit mode
// carries sequence numbers and CRC per flit (in the flit's bytes counted by pcieEncoding), so
// a TLP adds only its header.
func pcieLinkOverheadBytes(gen int) int {
	if gen >= 6 {
		return 0
	}
	return 8
}

func (l PCIeLink) known() bool {
	_, ok := pcieGigaTransfers[l.Generation]
	return ok && l.Width > 0
}

func (l PCIeLink) mps() int {
	if l.MaxPayloadBytes > 0 {
		return l.MaxPayloadBytes
	}
	return DefaultMaxPayloadBytes
}

// TLPOverheadBytes is what each memory write TLP costs beyond its payload: header + link
// overhead; 24 before Gen6 with a 4DW header.
func (l PCIeLink) TLPOverheadBytes() int {
	h := l.HeaderBytes
	if h <= 0 {
		h = 16
	}
	return h + pcieLinkOverheadBytes(l.Generation)
}

// RawGBps is the link's rate per direction after encoding, in GB/s (10^9 B/s): GT/s x
// encoding x lanes / 8. Gen5 x16: 32 x 128/130 x 16 / 8 = 63.0 GB/s.
func (l PCIeLink) RawGBps() float64 {
	if !l.known() {
		return 0
	}
	return pcieGigaTransfers[l.Generation] * pcieEncoding(l.Generation) * float64(l.Width) / 8
}

// TLPEfficiency is MPS / (MPS + TLP overhead): the share of the link full-sized writes carry
// as payload. DLLPs (ACKs, flow-control updates) are not counted, so it is an upper bound.
func (l PCIeLink) TLPEfficiency() float64 {
	return float64(l.mps()) / float64(l.mps()+l.TLPOverheadBytes())
}

// PayloadGBps is the most payload the link moves per direction in full-sized TLPs, in GB/s.
func (l PCIeLink) PayloadGBps() float64 { return l.RawGBps() * l.TLPEfficiency() }

// TransfersPerSecond is how many transfers of bytes each (a packet's DMA, split into MPS-sized
// TLPs) the link moves per second in one direction.
func (l PCIeLink) TransfersPerSecond(bytes int64) float64 {
	if !l.known() || bytes <= 0 {
		return 0
	}
	mps := int64(l.mps())
	tlps := (bytes + mps - 1) / mps
	return l.RawGBps() * 1e9 / float64(bytes+tlps*int64(l.TLPOverheadBytes()))
}

// String names the link: "PCIe Gen5 x16".
func (l PCIeLink) String() string { return fmt.Sprintf("PCIe Gen%d x%d", l.Generation, l.Width) }

func (l PCIeLink) model() string {
	return fmt.Sprintf("%s, %.1f GB/s after encoding, MPS %d B with %d B per TLP: %.3f of it",
		l, l.RawGBps(), l.mps(), l.TLPOverheadBytes(), l.TLPEfficiency())
}

// pcieCopyLimit is a PCIe link's ceiling on a copy rate in MB/s: full-sized TLPs.
func pcieCopyLimit(l PCIeLink, of string) Limit {
	return Limit{Component: PCIe, Name: fmt.Sprintf("%s of %s", l, of), Value: l.PayloadGBps() * 1000, Model: l.model()}
}

// pcieTrainLimit is the NIC's PCIe link's ceiling on a stream figure in Mb/s: each packet's
// DMA bytes in MPS-sized TLPs. Descriptors, completion entries and doorbells are not counted.
func pcieTrainLimit(l PCIeLink, of string, t train) Limit {
	perMessage := 0.0 // seconds of the link per message
	for _, g := range t.groups {
		perMessage += float64(g.n) / l.TransfersPerSecond(g.dma)
	}
	return Limit{Component: PCIe, Name: fmt.Sprintf("%s of %s", l, of),
		Value: float64(t.counted) * 8 / perMessage / 1e6, Model: l.model()}
}

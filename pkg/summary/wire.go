package summary

import (
	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// Link is one link's row of a summary spread over several links (dataplane record "links").
type Link struct {
	Link       int32  `json:"link"`
	Address    string `json:"address"`
	TXNetdev   string `json:"tx_netdev"`
	RXNetdev   string `json:"rx_netdev"`
	Pairs      int32  `json:"pairs"`
	TXMbps     int64  `json:"tx_mbps"`
	RXMbps     int64  `json:"rx_mbps"`
	TXBytesPHY int64  `json:"tx_bytes_phy"`
	RXBytesPHY int64  `json:"rx_bytes_phy"`
	Wire       string `json:"wire"`
}

// WireVerdict maps the data plane's word (crossed, did-not-cross, unverified) to the API's;
// "" (a kind that does not check, or an older data plane) stays "".
func WireVerdict(word string) sbv1.WireVerdict {
	switch word {
	case "crossed":
		return sbv1.WireCrossed
	case "did-not-cross":
		return sbv1.WireDidNotCross
	case "unverified":
		return sbv1.WireUnverified
	}
	return ""
}

// WireWord is WireVerdict backwards: the CSV writes the data plane's words.
func WireWord(v sbv1.WireVerdict) string {
	switch v {
	case sbv1.WireCrossed:
		return "crossed"
	case sbv1.WireDidNotCross:
		return "did-not-cross"
	case sbv1.WireUnverified:
		return "unverified"
	}
	return ""
}

// WorseWire is the worse of two verdicts: DidNotCross, then Unverified, then Crossed; "" is
// no verdict and loses to any.
func WorseWire(a, b sbv1.WireVerdict) sbv1.WireVerdict {
	rank := map[sbv1.WireVerdict]int{"": 0, sbv1.WireCrossed: 1, sbv1.WireUnverified: 2, sbv1.WireDidNotCross: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// wireProof is the summary's wire fields in the API's shape, nil when it has none.
func (s *Summary) wireProof() *sbv1.WireProof {
	v := WireVerdict(s.Wire)
	if v == "" {
		return nil
	}
	p := &sbv1.WireProof{Verdict: v, Note: clip(s.WireNote, 250), TXBytesPHY: s.TXBytesPHY, RXBytesPHY: s.RXBytesPHY}
	for _, l := range s.Links {
		if len(p.Links) == 8 {
			break
		}
		p.Links = append(p.Links, sbv1.LinkResult{Link: l.Link, Address: clip(l.Address, 60), TXInterface: clip(l.TXNetdev, 60),
			RXInterface: clip(l.RXNetdev, 60), Pairs: l.Pairs, TXMbps: l.TXMbps, RXMbps: l.RXMbps,
			TXBytesPHY: l.TXBytesPHY, RXBytesPHY: l.RXBytesPHY, Wire: WireVerdict(l.Wire)})
	}
	return p
}

// mergeWire takes the first rank's proof that says most: every two-sided rank writes the
// combined result of both sides, so they agree; the worst verdict wins if they do not.
func mergeWire(parts []Part) *sbv1.WireProof {
	var out *sbv1.WireProof
	for _, p := range parts {
		w := p.Summary.wireProof()
		if w == nil {
			continue
		}
		if out == nil || WorseWire(out.Verdict, w.Verdict) != out.Verdict {
			out = w
		}
	}
	return out
}

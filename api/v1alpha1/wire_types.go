package v1alpha1

// WireVerdict says whether the measured bytes crossed the cable, from the NIC's PHY counters
// (ethtool -S *_phy) sampled at both ends of the measured window (docs/wire.md "Wire proof").
// +kubebuilder:validation:Enum=Crossed;DidNotCross;Unverified
type WireVerdict string

const (
	// WireCrossed: every interface's PHY counters advanced by at least the application's bytes.
	WireCrossed WireVerdict = "Crossed"
	// WireDidNotCross: an interface's PHY counters advanced less than the application's bytes
	// (a loop inside the NIC or the host); the repeat is Invalid, "never crossed the wire".
	WireDidNotCross WireVerdict = "DidNotCross"
	// WireUnverified: an interface has no PHY counters (veth, DPDK virtual devices), so the
	// result cannot say whether the bytes crossed a cable.
	WireUnverified WireVerdict = "Unverified"
)

// WireProof is one repeat's wire verdict and the PHY byte counts behind it.
type WireProof struct {
	// verdict over every link and both directions: the worst of them.
	Verdict WireVerdict `json:"verdict"`

	// note says why the wire is unverified (which interface, which counters were missing).
	// +kubebuilder:validation:MaxLength=256
	// +optional
	Note string `json:"note,omitempty"`

	// txBytesPHY is how far the sending interfaces' tx_bytes_phy advanced over the window.
	// +optional
	TXBytesPHY int64 `json:"txBytesPHY,omitempty"`

	// rxBytesPHY is how far the receiving interfaces' rx_bytes_phy advanced over the window.
	// +optional
	RXBytesPHY int64 `json:"rxBytesPHY,omitempty"`

	// links are the per-link rows of a cell spread over several links (topology.links > 1).
	// +kubebuilder:validation:MaxItems=8
	// +listType=atomic
	// +optional
	Links []LinkResult `json:"links,omitempty"`
}

// LinkResult is one link's share of a repeat: its pairs' bytes and its interfaces' verdict.
type LinkResult struct {
	// link index, from 0: pair i runs on link i % links.
	Link int32 `json:"link"`

	// address is the server's address of this link.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Address string `json:"address,omitempty"`

	// txInterface is the sender's interface carrying the link.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	TXInterface string `json:"txInterface,omitempty"`

	// rxInterface is the receiver's interface carrying the link.
	// +kubebuilder:validation:MaxLength=64
	// +optional
	RXInterface string `json:"rxInterface,omitempty"`

	// pairs running on this link.
	// +optional
	Pairs int32 `json:"pairs,omitempty"`

	// txMbps sent on this link over the window.
	// +optional
	TXMbps int64 `json:"txMbps,omitempty"`

	// rxMbps received on this link over the window.
	// +optional
	RXMbps int64 `json:"rxMbps,omitempty"`

	// txBytesPHY of the link's sending interface over the window.
	// +optional
	TXBytesPHY int64 `json:"txBytesPHY,omitempty"`

	// rxBytesPHY of the link's receiving interface over the window.
	// +optional
	RXBytesPHY int64 `json:"rxBytesPHY,omitempty"`

	// wire verdict of this link.
	// +optional
	Wire WireVerdict `json:"wire,omitempty"`
}

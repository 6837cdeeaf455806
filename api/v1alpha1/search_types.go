package v1alpha1

// SearchMethod picks the next trial's rate of a rate search.
// +kubebuilder:validation:Enum=Binary;ReceiveRate
type SearchMethod string

const (
	// SearchMethodBinary probes the middle of the bracket (RFC 2544's binary search).
	SearchMethodBinary SearchMethod = "Binary"
	// SearchMethodReceiveRate probes just below what the receiver got in the last lossy trial,
	// then climbs in growing steps; it keeps the same bracket, so it finds the same rate in fewer trials.
	SearchMethodReceiveRate SearchMethod = "ReceiveRate"
)

// RateSearchSpec turns each cell into a search for the highest offered rate the cell holds
// without loss (NDR, RFC 2544 throughput) and, with pdrTolerancePPM, with at most that loss
// (PDR). The trials run inside the cell's pods, one after the other; the last one verifies the
// NDR for run.seconds. docs/ndr-search.md explains the search and its trial list.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.resolutionMbps) && has(self.resolutionPercent))",message="run.search takes one of resolutionMbps and resolutionPercent: remove the other"
type RateSearchSpec struct {
	// RateSearchSpecRules carries the rules too long for a marker line (search_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	RateSearchSpecRules `json:",inline"`

	// lowerMbps is the lowest rate tried (all pairs together); a cell that loses even there
	// reports its NDR as below this bound.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100000000
	// +optional
	LowerMbps int64 `json:"lowerMbps,omitempty"`

	// upperMbps is the highest rate tried; unset or 0 uses the rate an unpaced first trial reaches.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100000000
	// +optional
	UpperMbps *int64 `json:"upperMbps,omitempty"`

	// trialSeconds is the measured window of each search trial (the verification trial lasts run.seconds).
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=600
	// +optional
	TrialSeconds int32 `json:"trialSeconds,omitempty"`

	// resolutionMbps stops the search when the bracket is at most this wide.
	// +kubebuilder:validation:Maximum=100000000
	// +optional
	ResolutionMbps *int64 `json:"resolutionMbps,omitempty"`

	// resolutionPercent is the same in percent of the upper bound; the default (1) applies
	// when neither is set.
	// +optional
	ResolutionPercent *int32 `json:"resolutionPercent,omitempty"`

	// pdrTolerancePPM also searches the partial drop rate: the highest rate whose loss is at most
	// this many parts per million. Unset: NDR only.
	// +optional
	PDRTolerancePPM *int64 `json:"pdrTolerancePPM,omitempty"`

	// settleMilliseconds between trials, so queues drain before the next rate.
	// +kubebuilder:default=500
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=60000
	// +optional
	SettleMilliseconds *int32 `json:"settleMilliseconds,omitempty"`

	// method picks each trial's rate.
	// +kubebuilder:default=ReceiveRate
	// +optional
	Method SearchMethod `json:"method,omitempty"`
}

// SearchResult is what one repeat's search found (docs/ndr-search.md).
type SearchResult struct {
	// ndrMbps is the highest offered rate that lost nothing; 0 with ndrBelowLower.
	NDRMbps int64 `json:"ndrMbps"`
	// ndrBelowLower: even the lower bound lost.
	// +optional
	NDRBelowLower bool `json:"ndrBelowLower,omitempty"`
	// ndrAtUpper: the upper bound held, the cell may hold more.
	// +optional
	NDRAtUpper bool `json:"ndrAtUpper,omitempty"`
	// pdrMbps is the highest offered rate whose loss was within the tolerance (with one).
	// +optional
	PDRMbps *int64 `json:"pdrMbps,omitempty"`
	// verified: the verification trial at the NDR, run.seconds long, lost nothing.
	Verified bool `json:"verified"`
	// trials run before the verification.
	Trials int32 `json:"trials"`
	// resolutionMbps the search stopped at.
	ResolutionMbps int64 `json:"resolutionMbps"`
}

// SearchStatistics are a cell's found rates over its repeats.
type SearchStatistics struct {
	// ndrMbps over the repeats (a repeat below the lower bound counts 0).
	NDRMbps Statistic `json:"ndrMbps"`
	// pdrMbps over the repeats, with a tolerance.
	// +optional
	PDRMbps *Statistic `json:"pdrMbps,omitempty"`
	// belowLower counts the repeats whose NDR was below the lower bound.
	// +optional
	BelowLower int32 `json:"belowLower,omitempty"`
	// atUpper counts the repeats whose NDR was the upper bound.
	// +optional
	AtUpper int32 `json:"atUpper,omitempty"`
}

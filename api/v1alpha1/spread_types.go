package v1alpha1

// DefaultNoisySpreadPercent is run.noisySpreadPercent's default, for a spec the API server
// did not default (fixtures, a run read back from an older bucket).
const DefaultNoisySpreadPercent = 10

// CellSpread is how far a cell's headline figure varied over its Valid repeats. A cell with
// fewer than two Valid repeats, or a mean of 0, has none: its spread is unknown, not 0.
type CellSpread struct {
	// figure is the headline figure measured: RxMbps, or NCCLBusbwMBps of an NCCL cell,
	// CopyH2DMBps (else CopyD2HMBps) of a GPUCopy cell.
	// +kubebuilder:validation:MaxLength=64
	Figure string `json:"figure"`
	// cvMilliPercent is the coefficient of variation, sample standard deviation / mean over the
	// Valid repeats, in thousandths of a percent (84000 = 84 %), rounded.
	// +kubebuilder:validation:Minimum=0
	CVMilliPercent int32 `json:"cvMilliPercent"`
}

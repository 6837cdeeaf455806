package v1alpha1

// RunSpec sets how each cell runs. Fields whose zero is meaningful (no warm-up, no retry)
// are pointers, so an explicit 0 is kept rather than defaulted.
type RunSpec struct {
	// RunSpecRules carries the rules too long for a marker line (run_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	RunSpecRules `json:",inline"`

	// seconds measured per cell and repeat.
	// +kubebuilder:default=30
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3600
	// +optional
	Seconds int32 `json:"seconds,omitempty"`

	// warmupSeconds run before the measured window and excluded from the numbers.
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=600
	// +optional
	WarmupSeconds *int32 `json:"warmupSeconds,omitempty"`

	// repeats of each cell; results report mean and standard deviation over them.
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	// +optional
	Repeats int32 `json:"repeats,omitempty"`

	// noisySpreadPercent flags a cell as noisy (status cellResults[].noisy, a NoisyCell
	// Warning event) when its headline figure's coefficient of variation over the Valid repeats
	// (sample standard deviation / mean) exceeds this many percent. A flag only: the verdict
	// ignores it unless a rule bounds RxMbpsCVMilliPercent. 10 because a steady cell repeats
	// within a few percent, and a cell spreading more cannot resolve a baseline's default 5 %
	// regression.
	// +kubebuilder:default=10
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +optional
	NoisySpreadPercent int32 `json:"noisySpreadPercent,omitempty"`

	// cellDeadlineSeconds bounds one repeat of a cell, pod start included. Unset derives it
	// from seconds + warmupSeconds plus a start-up allowance.
	// +kubebuilder:validation:Minimum=2
	// +kubebuilder:validation:Maximum=86400
	// +optional
	CellDeadlineSeconds *int32 `json:"cellDeadlineSeconds,omitempty"`

	// retriesPerCell is how often a failed repeat is tried again before the cell is Failed.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	// +optional
	RetriesPerCell *int32 `json:"retriesPerCell,omitempty"`

	// search, when set, makes each cell a search for its no-drop rate (NDR) and, with a
	// tolerance, its partial drop rate (PDR) instead of one run at the matrix's target rate.
	// Paced transports only (UDP, RawEthernet).
	// +optional
	Search *RateSearchSpec `json:"search,omitempty"`
}

package v1alpha1

// WorkloadKind is the GPU computation run on each assembled receive window.
// +kubebuilder:validation:Enum=None;FFT;GEMM;GEMMFP16
type WorkloadKind string

const (
	// WorkloadNone runs no GPU computation.
	WorkloadNone WorkloadKind = "None"
	// WorkloadFFT runs batched 1-D complex-to-complex forward FFTs (cuFFT) over the window.
	WorkloadFFT WorkloadKind = "FFT"
	// WorkloadGEMM runs an FP32 n x n SGEMM (cuBLAS) with the window as an operand.
	WorkloadGEMM WorkloadKind = "GEMM"
	// WorkloadGEMMFP16 runs the same GEMM with FP16 inputs and FP32 accumulation on tensor cores.
	WorkloadGEMMFP16 WorkloadKind = "GEMMFP16"
)

// DataplaneName is the workload's name in the data plane's flags and DAQIRI's CSV
// (post_process): none, fft, gemm, gemm_fp16.
func (k WorkloadKind) DataplaneName() string {
	switch k {
	case WorkloadFFT:
		return "fft"
	case WorkloadGEMM:
		return "gemm"
	case WorkloadGEMMFP16:
		return "gemm_fp16"
	}
	return "none"
}

// WorkloadSpec is the GPU computation in the receive path. The received data is first
// reordered (RawEthernet, UDP) or gathered (TCP, RoCE) into one contiguous device buffer.
type WorkloadSpec struct {
	// WorkloadSpecRules carries the rules too long for a marker line (workload_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	WorkloadSpecRules `json:",inline"`

	// kind is None, FFT, GEMM (FP32) or GEMMFP16 (tensor cores).
	// +kubebuilder:default=None
	// +optional
	Kind WorkloadKind `json:"kind,omitempty"`

	// gemmN is the GEMM dimension n, fixed so every call does the same FLOPs.
	// +kubebuilder:default=1024
	// +kubebuilder:validation:Minimum=16
	// +kubebuilder:validation:Maximum=16384
	// +optional
	GEMMN int32 `json:"gemmN,omitempty"`

	// fftLength is the FFT size in complex samples.
	// +kubebuilder:default=1024
	// +optional
	FFTLength int32 `json:"fftLength,omitempty"`

	// batchBytes is the bytes fed to one compute call, decoupling the GPU working set from the
	// I/O unit. 0 uses the receive window (about 8 MB).
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=1073741824
	// +optional
	BatchBytes int32 `json:"batchBytes,omitempty"`

	// syncInterval is DAQIRI's "drain the GPU stream every N calls", recorded with the results
	// (post_process_sync). SpiralBench tracks each window with its own completion event and
	// waits on the GPU only when maxInFlight windows are outstanding, so it changes no timing.
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1024
	// +optional
	SyncInterval int32 `json:"syncInterval,omitempty"`

	// maxInFlight caps the receive windows held by the GPU at once; the receive loop stalls
	// (and counts the stall) only when the cap is reached.
	// +kubebuilder:default=2
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	MaxInFlight int32 `json:"maxInFlight,omitempty"`
}

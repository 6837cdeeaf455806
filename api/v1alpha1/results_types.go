package v1alpha1

// SecretReference names a Secret in the bench's namespace.
type SecretReference struct {
	// name of the Secret.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self != ''",message="credentialsSecretRef.name is empty: name a Secret in the bench's namespace with keys accessKeyID and secretAccessKey"
	// +required
	Name string `json:"name"`
}

// ConfigMapKeyReference names a key of a ConfigMap in the bench's namespace.
type ConfigMapKeyReference struct {
	// name of the ConfigMap.
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="self != ''",message="caBundleRef.name is empty: name a ConfigMap in the bench's namespace holding PEM certificates"
	// +required
	Name string `json:"name"`

	// key within the ConfigMap.
	// +kubebuilder:default="ca.crt"
	// +kubebuilder:validation:MaxLength=253
	// +optional
	Key string `json:"key,omitempty"`
}

// ResultsSpec is an S3-compatible bucket for the results. Objects go under
// <prefix>/<namespace>/<name>/<run-id>/.
type ResultsSpec struct {
	// ResultsSpecRules carries the rules too long for a marker line (results_rules.yaml,
	// written as markers by hack/gen-admission); it has no fields.
	ResultsSpecRules `json:",inline"`

	// endpoint URL of the S3 service, for example https://s3.example.com:9000.
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && (self.startsWith('http://') || self.startsWith('https://'))",message="results.endpoint must be an http:// or https:// URL"
	// +required
	Endpoint string `json:"endpoint"`

	// bucket name (3-63 lower-case letters, digits, dots and hyphens).
	// +kubebuilder:validation:Pattern=`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`
	// +required
	Bucket string `json:"bucket"`

	// prefix of every object key.
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9!_.*'()/-]*$`
	// +optional
	Prefix string `json:"prefix,omitempty"`

	// region of the bucket.
	// +kubebuilder:default="us-east-1"
	// +kubebuilder:validation:MaxLength=64
	// +optional
	Region string `json:"region,omitempty"`

	// credentialsSecretRef names a Secret with keys accessKeyID and secretAccessKey.
	// Credentials are read only from it and never copied into status, events or logs.
	// +required
	CredentialsSecretRef SecretReference `json:"credentialsSecretRef"`

	// insecureSkipTLSVerify skips verification of the server's certificate.
	// +optional
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty"`

	// caBundleRef names a ConfigMap key holding PEM certificates to trust.
	// +optional
	CABundleRef *ConfigMapKeyReference `json:"caBundleRef,omitempty"`
}

// Package v1alpha1 holds the SpiralBench API: a network loopback benchmark on GPU nodes,
// swept over payloads, batches, pairs, queues and target rates, with an optional GPU workload
// in the receive path.
// +kubebuilder:object:generate=true
// +groupName=spiralbench.io
package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the API group and version of SpiralBench objects.
	GroupVersion = schema.GroupVersion{Group: "spiralbench.io", Version: "v1alpha1"}

	// SchemeBuilder registers the types of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types of this group-version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

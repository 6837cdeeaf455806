package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// scheme is every type sbctl reads: SpiralBench's and Kubernetes' own (expect reads Nodes).
// The tests build their client from it too, so a type sbctl uses but does not register fails
// there rather than on a user's cluster.
var scheme = newScheme()

func newScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(sbv1.AddToScheme(s))
	return s
}

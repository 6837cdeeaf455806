package main

import (
	"fmt"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// benchKey reads a bench argument: NAME in ns (-n, else the kubeconfig's namespace), or
// NAMESPACE/NAME, so compare can set two namespaces' runs side by side.
func benchKey(arg, ns string) (client.ObjectKey, error) {
	if !strings.Contains(arg, "/") {
		return client.ObjectKey{Namespace: ns, Name: arg}, nil
	}
	parts := strings.Split(arg, "/")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return client.ObjectKey{}, fmt.Errorf("%q is not a bench: write NAME or NAMESPACE/NAME (a run in the bucket: s3://BUCKET/PATH/TO/RUN/)", arg)
	}
	return client.ObjectKey{Namespace: parts[0], Name: parts[1]}, nil
}

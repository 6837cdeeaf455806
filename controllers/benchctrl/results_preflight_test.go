package benchctrl

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A Secret the operator may not read (no Role in its namespace): the apiserver answers 403,
// which an envtest admin never gets, so the reader here answers it for Secrets. The bench must
// stop before its first cell with SecretForbidden and a message saying which namespace to grant.
// (SecretNotFound, SecretNotLabelled and EndpointNotAllowed run against a real apiserver in
// test/integration/preflight_test.go.)
func TestForbiddenResultsSecretStopsTheBenchBeforeItsFirstCell(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("forbidden", "lab").NodeName("spark-a").UID("f1").Obj()
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://s3.lab:9000", Bucket: "bench", CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	h := newHarness(t, sb, sbtesting.ReadyNode("spark-a"))
	h.r.APIReader = interceptor.NewClient(h.c.(client.WithWatch), interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if _, ok := obj.(*corev1.Secret); ok {
				return apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, key.Name, nil)
			}
			return c.Get(ctx, key, obj, opts...)
		},
	})
	got := h.reconcile()
	c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionResultsReady)
	if c == nil || c.Status != "False" || c.Reason != sbv1.ReasonSecretForbidden ||
		!strings.Contains(c.Message, "may not read Secrets in namespace lab (credentials Secret s3): add the namespace to the Helm value credentials.namespaces") {
		t.Fatalf("ResultsReady: %+v", c)
	}
	if got.Status.Phase != sbv1.PhasePending || got.Status.StartTime != nil || len(got.Status.Nodes) != 0 || len(h.pods()) != 0 || len(h.leases()) != 0 {
		t.Errorf("nothing may start or be held: phase %s, nodes %v, %d pods, %d leases", got.Status.Phase, got.Status.Nodes, len(h.pods()), len(h.leases()))
	}

	// Granted: the next look finds the Secret (here absent: NotFound, the next thing to fix).
	h.r.APIReader = h.c
	got = h.reconcile()
	if c := meta.FindStatusCondition(got.Status.Conditions, sbv1.ConditionResultsReady); c == nil || c.Reason != sbv1.ReasonSecretNotFound {
		t.Fatalf("after the grant: %+v", c)
	}
}

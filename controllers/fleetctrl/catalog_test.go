package fleetctrl

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/fleet"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// The fleet's own catalog when it names one, else the manager's; one that cannot be read or
// parsed judges every node NoReference (an empty catalog) and says why, never passes silently.
func TestCatalogOfTheFleetTheManagerOrNone(t *testing.T) {
	cm := func(name, data string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: name}, Data: map[string]string{catalogKey: data}}
	}
	c := fake.NewClientBuilder().WithScheme(sbtesting.Scheme(t)).WithObjects(
		cm("own", "version: 1\nclasses:\n- name: tiny\n"), cm("broken", "version: 2\n")).Build()
	rec := events.NewFakeRecorder(10)
	manager := &fleet.Catalog{Version: 1, Classes: []fleet.Class{{Name: "managers"}}}
	r := &Reconciler{Client: c, APIReader: c, Recorder: rec, Catalog: manager}
	view := func(name string) *fleetView {
		return &fleetView{f: &sbv1.SpiralBenchFleet{ObjectMeta: metav1.ObjectMeta{Namespace: "lab", Name: "f"},
			Spec: sbv1.SpiralBenchFleetSpec{References: &sbv1.ReferenceSpec{CatalogConfigMap: name}}}}
	}
	if got := r.catalogOf(context.Background(), view("")); got != manager {
		t.Fatalf("no ConfigMap named: the manager's catalog, got %+v", got)
	}
	if got := r.catalogOf(context.Background(), view("own")); got.Class("tiny") == nil || got.Class("managers") != nil {
		t.Fatalf("the fleet's ConfigMap: got %+v", got)
	}
	for _, name := range []string{"broken", "missing"} {
		got := r.catalogOf(context.Background(), view(name))
		if len(got.Classes) != 0 {
			t.Fatalf("%s: an empty catalog, got %+v", name, got)
		}
		if e := <-rec.Events; !strings.Contains(e, "CatalogUnreadable") || !strings.Contains(e, name) {
			t.Fatalf("%s: event %q", name, e)
		}
	}
}

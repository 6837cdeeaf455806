package integration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Every manifest under testdata/invalid (SpiralBenches and SpiralBenchFleets) is refused at
// admission with the message its first line names, and none of its "# not:" lines, and nothing
// is created.
func TestInvalidManifestsAreRefusedWithTheirMessage(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	manifests := readManifests(t, filepath.Join("testdata", "invalid", "*.yaml"))
	if len(manifests) < 25 {
		t.Fatalf("want at least 25 invalid manifests, found %d", len(manifests))
	}
	for _, m := range manifests {
		t.Run(strings.TrimSuffix(filepath.Base(m.path), ".yaml"), func(t *testing.T) {
			if m.want == "" {
				t.Fatalf("%s lacks a '# want:' first line", m.path)
			}
			m.obj.SetNamespace(ns)
			err := k8sClient.Create(context.Background(), m.obj)
			if err == nil {
				t.Fatalf("admitted; want refusal with %q", m.want)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("want an Invalid error, got %v", err)
			}
			if !strings.Contains(err.Error(), m.want) {
				t.Fatalf("error does not say %q:\n%v", m.want, err)
			}
			for _, n := range m.not {
				if strings.Contains(err.Error(), n) {
					t.Errorf("error says %q, which leads into another refusal:\n%v", n, err)
				}
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(m.obj.GroupVersionKind())
			if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: m.obj.GetName()}, got); !apierrors.IsNotFound(err) {
				t.Fatalf("a refused manifest must leave nothing behind, Get: %v", err)
			}
		})
	}
}

// The CEL cell bound and the planner agree at the edge: exactly 512 cells are admitted, both
// from explicit lists and with a preset filling a list.
func TestCellBoundAdmitsExactly512(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	seq := func(n int, from int32) []int32 {
		out := make([]int32, n)
		for i := range out {
			out[i] = from + int32(i)
		}
		return out
	}
	for name, sb := range map[string]*sbv1.SpiralBench{
		"raw-32x16": sbtesting.MakeSpiralBench("raw-32x16", ns).Transport(sbv1.TransportRawEthernet).
			Payloads(seq(32, 64)...).Batches(seq(16, 1)...).Obj(),
		"udp-16x4x8": sbtesting.MakeSpiralBench("udp-16x4x8", ns).Transport(sbv1.TransportUDP).
			Preset(sbv1.PresetDropCurve).Payloads(seq(16, 64)...).Pairs(1, 2, 3, 4).Obj(),
	} {
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Errorf("%s: a 512-cell plan must be admitted: %v", name, err)
			continue
		}
		waitAccepted(t, ns, name, 512)
	}
}

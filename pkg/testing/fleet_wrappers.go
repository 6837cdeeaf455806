package testing

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// FleetWrapper builds a SpiralBenchFleet.
type FleetWrapper struct{ sbv1.SpiralBenchFleet }

// MakeFleet starts a fleet over the nodes labelled pool=<pool>, benching each with a short
// one-cell TCP run (1 s, no warm-up, one repeat, no retry), maxParallel 10, only idle nodes.
func MakeFleet(name, namespace, pool string) *FleetWrapper {
	return &FleetWrapper{sbv1.SpiralBenchFleet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: sbv1.SpiralBenchFleetSpec{
			NodeSelector: metav1.LabelSelector{MatchLabels: map[string]string{"pool": pool}},
			Template: &sbv1.FleetBenchTemplate{Spec: sbv1.SpiralBenchSpec{
				Transport: sbv1.TransportTCP,
				Matrix:    sbv1.MatrixSpec{PayloadBytes: []int32{8000}, Pairs: []int32{1}},
				Run:       sbv1.RunSpec{Seconds: 1, WarmupSeconds: ptr.To[int32](0), Repeats: 1, RetriesPerCell: ptr.To[int32](0)},
			}},
			MaxParallel:   10,
			OnlyIdleNodes: ptr.To(true),
		},
	}}
}

// Obj returns the built object.
func (w *FleetWrapper) Obj() *sbv1.SpiralBenchFleet { return &w.SpiralBenchFleet }

func (w *FleetWrapper) MaxParallel(n int32) *FleetWrapper {
	w.Spec.MaxParallel = n
	return w
}

func (w *FleetWrapper) Ring() *FleetWrapper {
	w.Spec.Pairing = sbv1.PairingRing
	return w
}

func (w *FleetWrapper) Repeats(n int32) *FleetWrapper {
	w.Spec.Template.Spec.Run.Repeats = n
	return w
}

func (w *FleetWrapper) MinIntervalSeconds(s int32) *FleetWrapper {
	w.Spec.MinIntervalSeconds = s
	return w
}

func (w *FleetWrapper) Schedule(s string) *FleetWrapper {
	w.Spec.Schedule = s
	return w
}

// MinRxMbps adds the acceptance rule rx-floor: the headline cell's RxMbps >= mbps.
func (w *FleetWrapper) MinRxMbps(mbps int64) *FleetWrapper {
	if w.Spec.Template.Spec.Acceptance == nil {
		w.Spec.Template.Spec.Acceptance = &sbv1.AcceptanceSpec{}
	}
	w.Spec.Template.Spec.Acceptance.Rules = append(w.Spec.Template.Spec.Acceptance.Rules,
		sbv1.AcceptanceRule{Name: "rx-floor", Metric: sbv1.MetricRxMbps, Operator: sbv1.OperatorGreaterThanOrEqual, Value: mbps})
	return w
}

// Verdicts writes verdict labels, and with taint the Failed taint.
func (w *FleetWrapper) Verdicts(taint bool) *FleetWrapper {
	w.Spec.Verdicts = &sbv1.FleetVerdictSpec{Labels: true, TaintOnFailure: taint}
	return w
}

func (w *FleetWrapper) Stragglers(kMilli int32, failNode bool) *FleetWrapper {
	w.Spec.Stragglers = &sbv1.StragglerSpec{Metric: "RxMbps", KMilli: kMilli, MinNodes: 5, FailNode: failNode}
	return w
}

func (w *FleetWrapper) Baseline(kMilli, runs int32) *FleetWrapper {
	w.Spec.Baseline = &sbv1.HistoryBaselineSpec{Metric: "RxMbps", KMilli: kMilli, MinRegressionPercent: 2, Runs: runs}
	return w
}

func (w *FleetWrapper) UpgradeGate(drivers ...sbv1.UpgradeDriver) *FleetWrapper {
	w.Spec.UpgradeGate = &sbv1.UpgradeGateSpec{Drivers: drivers}
	return w
}

func (w *FleetWrapper) Results(r *sbv1.ResultsSpec) *FleetWrapper {
	w.Spec.Results = r
	return w
}

func (w *FleetWrapper) Tolerate(t corev1.Toleration) *FleetWrapper {
	w.Spec.Tolerations = append(w.Spec.Tolerations, t)
	return w
}

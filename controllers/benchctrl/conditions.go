package benchctrl

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// setCondition sets a condition and reports whether its status changed (a transition worth an event).
func setCondition(sb *sbv1.SpiralBench, condType string, status metav1.ConditionStatus, reason, message string) bool {
	before := meta.FindStatusCondition(sb.Status.Conditions, condType)
	changed := before == nil || before.Status != status
	meta.SetStatusCondition(&sb.Status.Conditions, metav1.Condition{
		Type:               condType,
		Status:             status,
		Reason:             reason,
		Message:            message,
		ObservedGeneration: sb.Generation,
	})
	return changed
}

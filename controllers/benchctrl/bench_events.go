package benchctrl

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
)

// Which events the bench controller writes (--bench-events).
const (
	BenchEventsAll      = "all"
	BenchEventsWarnings = "warnings"
)

// BenchEventRecorder is the bench controller's recorder for a --bench-events value: "all"
// writes every event; "warnings" only the Warning ones (a cell failed, an attempt failed, a
// refusal, an upload that failed). The Normal ones (planned, a cell started and valid, the bench
// completed, uploaded) say what the bench's status says too, and at thousands of benches an
// hour (a fleet qualifying a large pool) they are the largest share of the manager's writes.
func BenchEventRecorder(r events.EventRecorder, which string) (events.EventRecorder, error) {
	switch which {
	case BenchEventsAll, "":
		return r, nil
	case BenchEventsWarnings:
		return warningsOnly{r}, nil
	}
	return nil, fmt.Errorf("--bench-events is %q: use %s or %s", which, BenchEventsAll, BenchEventsWarnings)
}

type warningsOnly struct{ events.EventRecorder }

func (w warningsOnly) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if eventtype == corev1.EventTypeWarning {
		w.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
	}
}

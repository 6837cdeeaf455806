package benchctrl

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/events"
)

func TestBenchEventsWarningsKeepsOnlyWarnings(t *testing.T) {
	fake := events.NewFakeRecorder(10)
	r, err := BenchEventRecorder(fake, BenchEventsWarnings)
	if err != nil {
		t.Fatal(err)
	}
	r.Eventf(nil, nil, corev1.EventTypeNormal, "CellValid", "Run", "cell %d", 0)
	r.Eventf(nil, nil, corev1.EventTypeWarning, "CellFailed", "Run", "cell %d", 1)
	close(fake.Events)
	var got []string
	for e := range fake.Events {
		got = append(got, e)
	}
	if len(got) != 1 || got[0] != "Warning CellFailed cell 1" {
		t.Errorf("warnings only: got %q", got)
	}
}

func TestBenchEventsAllPassesEverythingAndOtherValuesAreRefused(t *testing.T) {
	fake := events.NewFakeRecorder(10)
	for _, which := range []string{"", BenchEventsAll} {
		r, err := BenchEventRecorder(fake, which)
		if err != nil || r != events.EventRecorder(fake) {
			t.Errorf("%q: the recorder itself, got %v, %v", which, r, err)
		}
	}
	if _, err := BenchEventRecorder(fake, "normal"); err == nil {
		t.Error("an unknown value is refused")
	}
}

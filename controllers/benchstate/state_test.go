package benchstate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/provenance"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

func TestFinishedCountsTheFleetsDeadlineMark(t *testing.T) {
	sb := fixture.TCPSweep("b", 1, false) // a finished bench: start it afresh
	sb.Status = sbv1.SpiralBenchStatus{Phase: sbv1.PhaseRunning}
	if Finished(sb) {
		t.Fatal("a new bench is not finished")
	}
	sb.Annotations = map[string]string{sbv1.AnnotationFleetDeadlineExceeded: "2026-11-29T10:00:00Z"}
	if !Finished(sb) {
		t.Fatal("a bench the fleet ended at its step's deadline is finished, whatever its phase")
	}
	sb.Annotations = nil
	for _, p := range []sbv1.Phase{sbv1.PhaseCompleted, sbv1.PhaseFailed} {
		sb.Status.Phase = p
		if !Finished(sb) {
			t.Errorf("phase %s: not finished", p)
		}
	}
}

func TestAPodEndsAtItsContainersExitBeforeItsPhase(t *testing.T) {
	exited := func(code int32) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}}}}
	}
	running := &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	for _, c := range []struct {
		name          string
		pod           *corev1.Pod
		ended, failed bool
	}{
		{"running", running, false, false},
		{"exited 0, phase still Running", exited(0), true, false},
		{"exited 3, phase still Running", exited(3), true, true},
		{"phase Failed without a container status", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed}}, true, true},
		{"phase Succeeded", &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodSucceeded}}, true, false},
	} {
		if PodEnded(c.pod) != c.ended || PodFailed(c.pod) != c.failed {
			t.Errorf("%s: ended %v failed %v, want %v %v", c.name, PodEnded(c.pod), PodFailed(c.pod), c.ended, c.failed)
		}
	}
}

// The fleet suspends its running bench and annotates it at a deadline: the mark must survive
// that, and nothing else.
func TestABenchsMarkSurvivesOnlyWhatTheFleetChanges(t *testing.T) {
	key := provenance.RandomKey()
	sb := fixture.TCPSweep("b", 1, false)
	if err := Mark(key, sb); err != nil {
		t.Fatal(err)
	}
	sb.Spec.Suspend = ptr.To(true)
	sb.Annotations[sbv1.AnnotationFleetDeadlineExceeded] = "now"
	sb.Annotations[sbv1.AnnotationFleetNoReference] = "true"
	if !Trusted(key, sb) {
		t.Fatalf("suspended and annotated by the fleet: %v", Foreign(key, sb))
	}
	sb.Spec.Run.Repeats++
	if _, ok := AsForeign(Foreign(key, sb)); !ok || Trusted(key, sb) {
		t.Fatal("a bench whose spec changed otherwise is foreign")
	}
	if Trusted(nil, sb) || Mark(nil, sb) == nil {
		t.Fatal("without a key nothing is trusted and nothing marked")
	}
}

func TestOnlyMarkedOwnedAttemptResultsCount(t *testing.T) {
	key := provenance.RandomKey()
	sb := fixture.TCPSweep("b", 1, false)
	sb.UID = "uid-b"
	rec := &sbv1.SpiralBenchAttemptResult{ObjectMeta: metav1.ObjectMeta{Namespace: sb.Namespace, Name: "b-c0-a0",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: sbv1.GroupVersion.String(), Kind: "SpiralBench", Name: "b", UID: sb.UID, Controller: ptr.To(true)}}}}
	own := OwnAttempt(key, sb)
	if own(rec) {
		t.Fatal("an unmarked record with the bench's owner reference is not the bench's")
	}
	if err := Mark(key, rec); err != nil {
		t.Fatal(err)
	}
	if !own(rec) {
		t.Fatal("a marked record the bench controls is its own")
	}
	other := fixture.TCPSweep("c", 1, false)
	other.UID = "uid-c"
	if OwnAttempt(key, other)(rec) {
		t.Fatal("a marked record of another bench is not this bench's")
	}
}

func TestBucketDefaultsWithoutABucketAreNone(t *testing.T) {
	if (BucketDefaults{Endpoint: "http://s3:7070"}).Results() != nil {
		t.Fatal("no bucket, no default results")
	}
	r := BucketDefaults{Endpoint: "http://s3:7070", Bucket: "b", CredentialsSecret: "s3"}.Results()
	if r == nil || r.Bucket != "b" || r.CredentialsSecretRef.Name != "s3" {
		t.Fatalf("got %+v", r)
	}
}

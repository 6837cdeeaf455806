package provenance

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A stored version whose mark checked out is not checked again; any other version is, and an
// object whose mark fails is never remembered.
func TestVerifyStoredChecksEachVersionOnce(t *testing.T) {
	k := RandomKey()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "n"}}
	content := "what the manager wrote"
	if err := k.Mark(pod, content); err != nil {
		t.Fatal(err)
	}
	pod.UID, pod.ResourceVersion = "u1", "10"
	computed := 0
	of := func(c string) func() any { return func() any { computed++; return c } }

	if err := k.VerifyStored(pod, of(content)); err != nil {
		t.Fatalf("the manager's own pod: %v", err)
	}
	if err := k.VerifyStored(pod, of(content)); err != nil || computed != 1 {
		t.Fatalf("the same version again: err %v, content computed %d times, want once", err, computed)
	}

	// An editor rewrites it: the apiserver gives the write a new version, which is checked.
	pod.ResourceVersion = "11"
	if err := k.VerifyStored(pod, of("what an editor wrote")); err == nil {
		t.Fatal("a changed object passed on its earlier version's check")
	}
	if err := k.VerifyStored(pod, of("what an editor wrote")); err == nil || computed != 3 {
		t.Fatalf("a failed check is remembered: err %v, computed %d, want 3", err, computed)
	}

	// Another object that copies the uid and version but not the mark is checked.
	forged := pod.DeepCopy()
	forged.ResourceVersion = "10"
	forged.Annotations[Annotation] = "Zm9yZ2Vk"
	if err := k.VerifyStored(forged, of(content)); err == nil {
		t.Fatal("a forged mark passed on the uid and version of a checked object")
	}

	// Objects not read from the apiserver have nothing to be known by: always checked.
	fresh := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "n"}}
	if err := k.Mark(fresh, content); err != nil {
		t.Fatal(err)
	}
	before := computed
	_ = k.VerifyStored(fresh, of(content))
	_ = k.VerifyStored(fresh, of(content))
	if computed != before+2 {
		t.Fatalf("an object without uid and version was remembered (computed %d, want %d)", computed, before+2)
	}
}

// The look-up a fleet step makes for every bench and node result of its round: a version
// that checked out before (go test -bench VerifyStoredRemembered -benchmem ./pkg/provenance/).
func BenchmarkVerifyStoredRemembered(b *testing.B) {
	k := RandomKey()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "n"}}
	if err := k.Mark(pod, "content"); err != nil {
		b.Fatal(err)
	}
	pod.UID, pod.ResourceVersion = "5c0c2d1e-8f0a-4b7e-9d52-0f3c6c1b2a77", "123456"
	content := func() any { return "content" }
	if err := k.VerifyStored(pod, content); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := k.VerifyStored(pod, content); err != nil {
			b.Fatal(err)
		}
	}
}

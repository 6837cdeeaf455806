package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// Fast failures: what can be known before the first cell stops the bench there, not after it.

// resultsNotReady waits for the bench's ResultsReady=False and checks that it holds no node and
// created no pod meanwhile.
func resultsNotReady(t *testing.T, ns, name, reason string) *metav1.Condition {
	t.Helper()
	var cond *metav1.Condition
	eventually(t, 15*time.Second, name+" ResultsReady=False "+reason, func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, cur); err != nil {
			return false, err.Error()
		}
		cond = meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionResultsReady)
		running := meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionRunning)
		return cond != nil && cond.Status == metav1.ConditionFalse && cond.Reason == reason &&
				cur.Status.Phase == sbv1.PhasePending && cur.Status.StartTime == nil && len(cur.Status.Nodes) == 0 &&
				running != nil && running.Reason == sbv1.ReasonResultsNotReady,
			fmt.Sprintf("phase %s nodes %v conditions %s", cur.Status.Phase, cur.Status.Nodes, spew(cond))
	})
	if pods := podsOf(t, ns, name); len(pods) != 0 {
		t.Errorf("%s started %d pods although its results cannot be uploaded", name, len(pods))
	}
	return cond
}

// A bench naming a credentials Secret that does not exist runs no cell: ResultsReady=False
// SecretNotFound and a Warning event name the Secret and its namespace. Once the Secret exists
// the bench goes on by itself and runs to the end.
func TestMissingResultsSecretStopsTheBenchBeforeItsFirstCell(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "preflight-1")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("nosecret", ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), "preflight-1")
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: "http://127.0.0.1:1", Bucket: "bench", Region: "us-east-1",
		CredentialsSecretRef: sbv1.SecretReference{Name: "s3-later"}}
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	cond := resultsNotReady(t, ns, "nosecret", sbv1.ReasonSecretNotFound)
	if want := "credentials Secret s3-later does not exist in namespace " + ns; !strings.Contains(cond.Message, want) {
		t.Errorf("ResultsReady message: want %q, got %q", want, cond.Message)
	}
	eventually(t, 10*time.Second, "a SecretNotFound Warning event", func() (bool, string) {
		notes := warningNotes(t, ns, "nosecret")
		return strings.Contains(notes, sbv1.ReasonSecretNotFound+": no cell starts until the results can be uploaded: credentials Secret s3-later does not exist in namespace "+ns), notes
	})

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3-later", Namespace: ns, Labels: map[string]string{sbv1.LabelCredentials: "true"}},
		Data: map[string][]byte{"accessKeyID": []byte("AKIDEXAMPLE"), "secretAccessKey": []byte("later")}}
	if err := k8sClient.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	done := (&kubeletStandIn{t: t, ns: ns, bench: "nosecret"}).runUntil(90*time.Second, sbv1.PhaseCompleted)
	if c := meta.FindStatusCondition(done.Status.Conditions, sbv1.ConditionResultsReady); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("after the Secret was created: ResultsReady %s", spew(c))
	}
}

// A refusal (exit code 2: the data plane found the cell cannot run, here a payload above the
// path MTU) fails the cell at once, without the retries and without waiting for the server,
// which would wait a minute for a client that never connects.
func TestRefusedCellFailsWithoutWaitingForItsPeer(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	testNode(t, "preflight-2")
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench("refused", ns).Transport(sbv1.TransportUDP).Payloads(8000).Pairs(1), 3, 2).Obj(), "preflight-2")
	sb.Spec.Run.Seconds = 20 // a deadline far beyond the few seconds the failure may take
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	reason := "spiral-dataplane: payload 8000 B + 28 B of IPv4 and UDP headers exceeds the path MTU 1500 of eth0"
	k := &kubeletStandIn{t: t, ns: ns, bench: "refused", fate: func(cell, attempt int, role string) *podFate {
		if role == cellpod.RoleClient {
			return &podFate{exitCode: 2, message: reason, peerRuns: true}
		}
		return nil
	}}
	started := time.Now()
	done := k.runUntil(15*time.Second, sbv1.PhaseCompleted, sbv1.PhaseFailed)
	c := done.Status.CellResults[0]
	if c.State != sbv1.CellFailed || c.Attempts != 1 || !strings.Contains(c.Message, reason) {
		t.Errorf("want the cell Failed after its one refused attempt, saying why; got %s after %d attempts: %s", c.State, c.Attempts, c.Message)
	}
	t.Logf("failed %.1f s after creation: %s", time.Since(started).Seconds(), c.Message)
}

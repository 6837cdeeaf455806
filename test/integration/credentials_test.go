package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/controllers/benchctrl"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

const (
	leakKeyID  = "AKIDINTEGRATIONLEAK"
	leakSecret = "s3cr3t/VALUE+that-must-not-leak"
)

// uploadOutcome runs a one-cell bench to completion with spec.results naming endpoint and the
// Secret s3 (labelled or not), and returns its ResultsUploaded condition once it is False.
func uploadOutcome(t *testing.T, name, endpoint string, labelled bool) (string, *metav1.Condition) {
	t.Helper()
	ns := newNamespace(t)
	node := "cred-" + name
	testNode(t, node)
	labels := map[string]string{}
	if labelled {
		labels[sbv1.LabelCredentials] = "true"
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns, Labels: labels},
		Data: map[string][]byte{"accessKeyID": []byte(leakKeyID), "secretAccessKey": []byte(leakSecret)}}
	if err := k8sClient.Create(context.Background(), secret); err != nil {
		t.Fatal(err)
	}
	sb := onTestNode(shortRun(sbtesting.MakeSpiralBench(name, ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), node)
	sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: endpoint, Bucket: "bench", Region: "us-east-1",
		CredentialsSecretRef: sbv1.SecretReference{Name: "s3"}}
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	(&kubeletStandIn{t: t, ns: ns, bench: name}).runUntil(30*time.Second, sbv1.PhaseCompleted)
	var cond *metav1.Condition
	eventually(t, 20*time.Second, name+" ResultsUploaded=False", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKeyFromObject(sb), cur); err != nil {
			return false, err.Error()
		}
		cond = meta.FindStatusCondition(cur.Status.Conditions, sbv1.ConditionResultsUploaded)
		return cond != nil && cond.Status == metav1.ConditionFalse, "condition " + spew(cond)
	})
	return ns, cond
}

func spew(c *metav1.Condition) string {
	if c == nil {
		return "<none>"
	}
	return c.Reason + ": " + c.Message
}

// noLeak fails when the key id or the secret (or its first part) is in s.
func noLeak(t *testing.T, where, s string) {
	t.Helper()
	for _, leak := range []string{leakKeyID, leakSecret, "s3cr3t"} {
		if strings.Contains(s, leak) {
			t.Errorf("%s holds %q: %s", where, leak, s)
		}
	}
}

// warningNotes are the notes of the Warning events about bench name in ns.
func warningNotes(t *testing.T, ns, name string) string {
	t.Helper()
	var list eventsv1.EventList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, e := range list.Items {
		if e.Regarding.Name == name && e.Type == corev1.EventTypeWarning {
			notes = append(notes, e.Reason+": "+e.Note)
		}
	}
	return strings.Join(notes, "\n")
}

// A server answering 403 or 500 with the signed request (and, planted, the secret) in its error
// body: the condition and the Warning event carry what it said, never the credentials, and
// neither does anything the manager logged.
func TestEchoedCredentialsReachNeitherStatusNorEventsNorLog(t *testing.T) {
	requireEnv(t)
	for _, c := range []struct {
		name string
		srv  *sbtesting.EchoingS3
	}{{"echo-403", echo403}, {"echo-500", echo500}} {
		t.Run(c.name, func(t *testing.T) {
			ns, cond := uploadOutcome(t, c.name, c.srv.URL, true)
			if cond.Reason != sbv1.ReasonUploadFailed || !strings.Contains(cond.Message, "request was PUT") {
				t.Errorf("the condition should say what the server answered: %s", spew(cond))
			}
			noLeak(t, "status condition", cond.Message)
			var notes string
			eventually(t, 10*time.Second, "an UploadFailed Warning event", func() (bool, string) {
				notes = warningNotes(t, ns, c.name)
				return strings.Contains(notes, sbv1.ReasonUploadFailed), notes
			})
			noLeak(t, "Warning events", notes)
			noLeak(t, "manager log", managerLog.String())
			if echoed := strings.Join(c.srv.Bodies(), "\n"); !strings.Contains(echoed, "Credential="+leakKeyID) || !strings.Contains(echoed, leakSecret) {
				t.Fatalf("the server's bodies never held the credentials, so nothing was tested: %.300s", echoed)
			}
		})
	}
}

// A Secret its owner has not labelled is not used, and an endpoint off the allow-list is refused
// before any Secret is read (here the Secret does not exist, and the message is the allow-list's):
// both before the first cell, so nothing is measured for results that cannot be uploaded, and
// no request is signed. Once the owner labels the Secret the bench goes on by itself.
func TestUnlabelledSecretsAndUnlistedEndpointsAreRefused(t *testing.T) {
	requireEnv(t)
	for _, c := range []struct {
		name, endpoint, secret, reason, want string
	}{
		{"unlabelled", echo403.URL, "s3", sbv1.ReasonSecretNotLabelled, "credentials Secret s3 is not labelled spiralbench.io/credentials=true"},
		{"unlisted", "http://127.0.0.1:2", "none", sbv1.ReasonEndpointNotAllowed, "results.endpoint http://127.0.0.1:2 is not one of the endpoints this operator uploads to"},
	} {
		ns := newNamespace(t)
		testNode(t, "cred-"+c.name)
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s3", Namespace: ns},
			Data: map[string][]byte{"accessKeyID": []byte(leakKeyID), "secretAccessKey": []byte(leakSecret)}}
		if err := k8sClient.Create(context.Background(), secret); err != nil {
			t.Fatal(err)
		}
		// Only this bench's requests count: another test's bench may still retry its upload to the
		// same server. Object keys start with the bench's namespace (report.Prefix).
		signed := func() int {
			n := 0
			for _, b := range echo403.Bodies() {
				if strings.Contains(b, "/"+ns+"/") {
					n++
				}
			}
			return n
		}
		before := signed()
		sb := onTestNode(shortRun(sbtesting.MakeSpiralBench(c.name, ns).Transport(sbv1.TransportTCP).Payloads(8000).Pairs(1), 1, 0).Obj(), "cred-"+c.name)
		sb.Spec.Results = &sbv1.ResultsSpec{Endpoint: c.endpoint, Bucket: "bench", Region: "us-east-1",
			CredentialsSecretRef: sbv1.SecretReference{Name: c.secret}}
		if err := k8sClient.Create(context.Background(), sb); err != nil {
			t.Fatal(err)
		}
		cond := resultsNotReady(t, ns, c.name, c.reason)
		if !strings.Contains(cond.Message, c.want) {
			t.Errorf("%s: %s", c.name, spew(cond))
		}
		noLeak(t, "status condition", cond.Message)
		if c.name != "unlabelled" {
			continue
		}
		if got := signed(); got != before {
			t.Errorf("the server got %d requests signed with an unlabelled Secret", got-before)
		}
		secret.Labels = map[string]string{sbv1.LabelCredentials: "true"}
		if err := k8sClient.Update(context.Background(), secret); err != nil {
			t.Fatal(err)
		}
		(&kubeletStandIn{t: t, ns: ns, bench: c.name}).runUntil(90*time.Second, sbv1.PhaseCompleted)
		eventually(t, 20*time.Second, "the upload, signed with the labelled Secret", func() (bool, string) {
			return signed() > before, "no request yet"
		})
	}
}

// Shared cores that the bench declares are admitted and named in a Warning event.
func TestDeclaredCoreSharingIsAdmittedWithAWarning(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	sb := sbtesting.MakeSpiralBench("shared", ns).Obj()
	sb.Spec.Topology.CoreSharing = sbv1.CoreSharingShared
	sb.Spec.Topology.Placement = nowhere() // it must not take a node another test runs on
	sb.Spec.Topology.Server.Cores = &sbv1.CoreMap{Pollers: []int32{16, 17}}
	sb.Spec.Topology.Client.Cores = &sbv1.CoreMap{Pollers: []int32{16, 17}}
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatalf("declared sharing must be admitted: %v", err)
	}
	eventually(t, 10*time.Second, "a CoresShared Warning event", func() (bool, string) {
		notes := warningNotes(t, ns, "shared")
		return strings.Contains(notes, benchctrl.ReasonCoresShared+": topology.coreSharing is Shared and cores 16, 17"), notes
	})
}

// nowhere is a placement no node matches: the bench is planned and then waits, holding no node.
func nowhere() *sbv1.Placement {
	return &sbv1.Placement{NodeSelector: map[string]string{"spiralbench.io/no-such-node": "true"}}
}

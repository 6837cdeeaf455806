package benchctrl

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
	"github.com/spiralbench/spiralbench/pkg/cellpod"
	"github.com/spiralbench/spiralbench/pkg/plan"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// A pod whose summary echoes another cell than the one planned measured nothing of this cell:
// its repeat is Invalid and says what differs; the echo of the planned cell is Valid.
func TestSummaryEchoingAnotherCellIsInvalid(t *testing.T) {
	sb := sbtesting.MakeSpiralBench("echo", "lab").Transport(sbv1.TransportTCP).Payloads(8000).Pairs(4).Obj()
	sb.Spec.Matrix.TargetRatesMbps = []int32{2500}
	cells, err := plan.Expand(&sb.Spec)
	if err != nil {
		t.Fatal(err)
	}
	in, err := cellpod.NewInput(sb, cells[0], 0, 1, 0, []string{"spark-a"})
	if err != nil {
		t.Fatal(err)
	}
	want := in.Echo()
	if want.Transport != "tcp" || want.PayloadBytes != 8000 || want.Pairs != 4 || want.TargetMbps != 10000 {
		t.Fatalf("the planned cell's echo is what Args pass: %+v", want)
	}
	ranks := benchkind.ServerClient(&sb.Spec)
	run := func(server, client *sbtesting.SummaryWrapper) sbv1.RepeatResult {
		t.Helper()
		pods := []*corev1.Pod{
			sbtesting.WrapPod(&corev1.Pod{}).Succeeded(server.JSON()).Obj(),
			sbtesting.WrapPod(&corev1.Pod{}).Succeeded(client.JSON()).Obj(),
		}
		o := judge(ranks, pods, &sbv1.ActiveAttempt{}, want)
		if o.reason != "" || len(o.results) != 1 {
			t.Fatalf("one measured repeat: %+v", o)
		}
		return o.results[0]
	}
	server := func() *sbtesting.SummaryWrapper { return sbtesting.MakeSummary("server").Echo(want).RXMbps(9000) }
	client := func() *sbtesting.SummaryWrapper { return sbtesting.MakeSummary("client").Echo(want).TXMbps(9100) }
	if r := run(server(), client()); r.State != sbv1.CellValid {
		t.Errorf("the planned cell: %+v", r)
	}
	stale := client()
	stale.PayloadBytes, stale.TargetMbps = 1000, 0
	r := run(server(), stale)
	if r.State != sbv1.CellInvalid || !strings.Contains(r.Message, "client measured another cell: payload 1000 B, planned 8000 B, target 0 Mb/s, planned 10000 Mb/s") {
		t.Errorf("a client that measured 1000 B unpaced: %+v", r)
	}
	other := server()
	other.Transport = "udp"
	if r := run(other, client()); r.State != sbv1.CellInvalid || !strings.Contains(r.Message, `server measured another cell: transport "udp", planned "tcp"`) {
		t.Errorf("a server of another transport: %+v", r)
	}
}

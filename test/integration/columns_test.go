package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	sbtesting "github.com/spiralbench/spiralbench/pkg/testing"
)

// What `kubectl get sb` shows, as the apiserver renders it (a Table): the headline cell's
// rate under a name that survives kubectl's upper-casing, 0 failed and invalid cells rather
// than nothing, the run, not a file of it, what bounded the headline cell, and the nodes as
// "node-a,node-b" (status.nodesText: a column of the list status.nodes would show JSON, or only
// its first item). TestSweepRunsCellByCellToCompletion checks that the controller writes it.
func TestBenchColumnsReadRight(t *testing.T) {
	requireEnv(t)
	ns := newNamespace(t)
	sb := sbtesting.MakeSpiralBench("cols", ns).Suspend(true).Obj()
	if err := k8sClient.Create(context.Background(), sb); err != nil {
		t.Fatal(err)
	}
	mean := func(v int64) *sbv1.Statistic { return &sbv1.Statistic{Mean: v} }
	params := sbv1.CellParameters{PayloadBytes: 8000, Batch: 1, Pairs: 4, Queues: sbv1.QueueCell{TX: 1, RX: 1}, Workload: sbv1.WorkloadNone}
	status := sbv1.SpiralBenchStatus{Phase: sbv1.PhaseCompleted, BestRxMbps: 9600, Nodes: []string{"node-a", "node-b"}, NodesText: "node-a,node-b",
		Cells: sbv1.CellCounts{Total: 2, Succeeded: 2},
		CellResults: []sbv1.CellResult{{Index: 0, State: sbv1.CellValid, Parameters: params, RXMbps: mean(9600)},
			{Index: 1, Headline: true, State: sbv1.CellValid, Parameters: params, RXMbps: mean(9400), BoundBy: "0.95 of 9.92 Gb/s (Ethernet)"}},
		Artifacts: &sbv1.Artifacts{RunID: "20261129T100000Z-abcd"}}
	rc, err := rest.RESTClientFor(restConfigFor(sbv1.GroupVersion.Group, sbv1.GroupVersion.Version))
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the columns", func() (bool, string) {
		cur := &sbv1.SpiralBench{}
		if err := k8sClient.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "cols"}, cur); err != nil {
			return false, err.Error()
		}
		// A merge patch, as the controller writes status: the zero counts are in no patch.
		before := cur.DeepCopy()
		cur.Status = status
		if err := k8sClient.Status().Patch(context.Background(), cur, client.MergeFrom(before)); err != nil {
			return false, "status: " + err.Error()
		}
		raw, err := rc.Get().Namespace(ns).Resource("spiralbenches").Name("cols").
			SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io").Param("includeObject", "None").DoRaw(context.Background())
		var table metav1.Table
		if err == nil {
			err = json.Unmarshal(raw, &table)
		}
		if err != nil || len(table.Rows) != 1 {
			return false, fmt.Sprintf("table: %v", err)
		}
		got := map[string]any{}
		for i, c := range table.ColumnDefinitions {
			got[c.Name] = table.Rows[0].Cells[i]
		}
		want := map[string]string{"Headline Mbit/s": "9400", "Failed": "0", "Invalid": "0", "Run": "20261129T100000Z-abcd", "Best Mbit/s": "9600",
			"Headline bound by": "0.95 of 9.92 Gb/s (Ethernet)", "Nodes": "node-a,node-b"}
		var wrong []string
		for k, v := range want {
			if s := strings.TrimSpace(fmt.Sprint(got[k])); s != v {
				wrong = append(wrong, k+"="+s)
			}
		}
		return len(wrong) == 0, strings.Join(wrong, " ")
	})
}

func restConfigFor(group, version string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &schema.GroupVersion{Group: group, Version: version}
	c.APIPath = "/apis"
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	return c
}

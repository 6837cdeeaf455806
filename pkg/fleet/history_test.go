package fleet

import (
	"reflect"
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

func TestBaselineUsesRecentComparableRunsOnly(t *testing.T) {
	env := sbv1.Environment{GPUDriver: "580.65", NICFirmware: "28.43", Kernel: "6.11", Image: "dp@sha256:1"}
	newDriver := env
	newDriver.GPUDriver = "590.10"
	records := []Record{
		{RunID: "r1", Time: "2026-11-01T00:00:00Z", Metric: "RxMbps", Values: []int64{1}, Environment: env},
		{RunID: "r2", Time: "2026-11-02T00:00:00Z", Metric: "RxMbps", Values: []int64{2, 3}, Environment: env},
		{RunID: "r3", Time: "2026-11-03T00:00:00Z", Metric: "RxMbps", Values: []int64{4}, Environment: env},
		{RunID: "other-driver", Time: "2026-11-04T00:00:00Z", Metric: "RxMbps", Values: []int64{99}, Environment: newDriver},
		{RunID: "latency", Time: "2026-11-04T00:00:00Z", Metric: "LatencyP50Nanoseconds", Values: []int64{98}, Environment: env},
		{RunID: "now", Time: "2026-11-05T00:00:00Z", Metric: "RxMbps", Values: []int64{97}, Environment: env},
	}
	values, runs := Baseline(records, "RxMbps", env, nil, "now", 2)
	if runs != 2 || !reflect.DeepEqual(values, []int64{4, 2, 3}) {
		t.Fatalf("baseline %v from %d runs; want the two latest comparable runs r3, r2", values, runs)
	}
	if v, n := Baseline(records, "RxMbps", newDriver, nil, "x", 5); n != 1 || v[0] != 99 {
		t.Fatalf("after a driver change only that driver's runs count: %v %d", v, n)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := Record{Node: "n1", Fleet: "f", Bench: "f-1-abc", RunID: "20261124T000000Z-abcd", Metric: "RxMbps", Values: []int64{5}}
	data, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeRecord(data)
	if err != nil || back.Node != "n1" || back.V != 1 {
		t.Fatalf("%+v %v", back, err)
	}
	if _, err := DecodeRecord([]byte(`{"v":2}`)); err == nil {
		t.Fatal("version 2 accepted")
	}
	if k := RecordKey("p/", "ns", r); k != "p/history/ns/f/n1/20261124T000000Z-abcd/record.json" {
		t.Fatalf("key %s", k)
	}
}

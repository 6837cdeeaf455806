package fleet

import "testing"

func TestBenchNameIsStableAndShort(t *testing.T) {
	a := BenchName("abcdefghijklmnopqrstuvwx", 99999, KindRound, "node-1")
	if a != BenchName("abcdefghijklmnopqrstuvwx", 99999, KindRound, "node-1") {
		t.Fatal("not deterministic")
	}
	if len(a) > 40 {
		t.Fatalf("%s is %d characters", a, len(a))
	}
	if a == BenchName("abcdefghijklmnopqrstuvwx", 99999, KindIsolate, "node-1") ||
		BenchName("f", 1, KindRound, "a", "b") == BenchName("f", 1, KindRound, "b", "a") {
		t.Fatal("names collide across kinds or roles")
	}
}

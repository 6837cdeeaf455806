package fleet

import (
	"fmt"
	"testing"
)

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("node-%02d", i)
	}
	return out
}

func TestRingPairsCoverEveryNodeOncePerRound(t *testing.T) {
	for _, n := range []int{2, 3, 4, 7, 10} {
		for round := int32(1); round <= 5; round++ {
			pairs, alone := RingPairs(names(n), round)
			seen := map[string]int{}
			for _, p := range pairs {
				seen[p.Server]++
				seen[p.Client]++
				if p.Server == p.Client {
					t.Fatalf("n=%d round %d: %s paired with itself", n, round, p.Server)
				}
			}
			if alone != "" {
				seen[alone]++
			}
			if len(seen) != n || (n%2 == 1) != (alone != "") {
				t.Fatalf("n=%d round %d: %d nodes covered, alone %q", n, round, len(seen), alone)
			}
			for node, c := range seen {
				if c != 1 {
					t.Fatalf("n=%d round %d: %s appears %d times", n, round, node, c)
				}
			}
		}
	}
}

func TestRingPairsRotateThroughEveryPartner(t *testing.T) {
	n := 6
	met := map[[2]string]bool{}
	for round := int32(1); round <= int32(n-1); round++ {
		pairs, _ := RingPairs(names(n), round)
		for _, p := range pairs {
			k := [2]string{min(p.Server, p.Client), max(p.Server, p.Client)}
			if met[k] {
				t.Fatalf("round %d repeats pair %v", round, k)
			}
			met[k] = true
		}
	}
	if len(met) != n*(n-1)/2 {
		t.Fatalf("%d distinct pairs over %d rounds, want all %d", len(met), n-1, n*(n-1)/2)
	}
	first, _ := RingPairs(names(n), 1)
	again, _ := RingPairs(names(n), int32(n))
	if fmt.Sprint(first) != fmt.Sprint(again) {
		t.Fatalf("the rotation should repeat after n-1 rounds: %v vs %v", first, again)
	}
}

func TestRingPairsSmallPools(t *testing.T) {
	if p, alone := RingPairs(nil, 1); p != nil || alone != "" {
		t.Fatalf("empty pool: %v %q", p, alone)
	}
	if p, alone := RingPairs([]string{"a"}, 3); p != nil || alone != "a" {
		t.Fatalf("one node: %v %q", p, alone)
	}
}

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

func TestDomainPairsStayInsideOrCrossDomains(t *testing.T) {
	nodes := []string{"a1", "a2", "a3", "b1", "b2", "b3", "c1"}
	dom := map[string]string{"a1": "rack-a", "a2": "rack-a", "a3": "rack-a", "b1": "rack-b", "b2": "rack-b", "b3": "rack-b"}
	for round := int32(1); round <= 3; round++ {
		pairs, alone := DomainPairs(nodes, dom, round, false)
		seen := map[string]bool{}
		for _, p := range pairs {
			if dom[p.Server] != dom[p.Client] {
				t.Errorf("round %d: within pairs %v crosses domains", round, p)
			}
			seen[p.Server], seen[p.Client] = true, true
		}
		for _, a := range alone {
			seen[a] = true
		}
		if len(pairs) != 2 || len(alone) != 3 || len(seen) != len(nodes) {
			t.Errorf("round %d: within %v alone %v", round, pairs, alone)
		}
	}
	six := nodes[:6]
	for round := int32(1); round <= 3; round++ {
		pairs, alone := DomainPairs(six, dom, round, true)
		if len(pairs) != 3 || len(alone) != 0 {
			t.Fatalf("round %d: across %v alone %v", round, pairs, alone)
		}
		for _, p := range pairs {
			if dom[p.Server] == dom[p.Client] {
				t.Errorf("round %d: across pair %v stays in one domain", round, p)
			}
		}
	}
	r1, _ := DomainPairs(six, dom, 1, true)
	r2, _ := DomainPairs(six, dom, 2, true)
	if r1[0] == r2[0] {
		t.Errorf("across pairs do not rotate: %v then %v", r1, r2)
	}
}

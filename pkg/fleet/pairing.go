// Package fleet holds the pure parts of fleet qualification: pairing and its rotation,
// idle detection, stragglers (median - k x MAD), history baselines, the upgrade gate's
// state machine and the fleet summary files. The controller (controllers/fleet_*.go) feeds
// them what it read from the API and writes back what they decide.
package fleet

import "sort"

// Pair is one CrossNode bench: the server (receiver) and the client (sender).
type Pair struct{ Server, Client string }

// RingPairs pairs nodes for round (from 1) by the circle method of a round-robin
// tournament: the nodes sorted by name sit on a ring with the first fixed, the rest rotate
// one place per round, and opposite seats pair up. Over n-1 successive rounds (n even) every
// node meets every other exactly once, so a slow link is not always blamed on the same
// neighbour. With an odd count the node facing the empty seat sits out: it is returned as
// alone and gets a partner that passed (see the controller).
func RingPairs(nodes []string, round int32) (pairs []Pair, alone string) {
	sorted := append([]string(nil), nodes...)
	sort.Strings(sorted)
	n := len(sorted)
	if n < 2 {
		if n == 1 {
			return nil, sorted[0]
		}
		return nil, ""
	}
	seats := sorted
	if n%2 == 1 {
		seats = append(seats, "") // the empty seat
	}
	m := len(seats)
	rot := int(max(round-1, 0)) % (m - 1)
	// seat 0 is fixed; the others shift by rot.
	at := func(i int) string {
		if i == 0 {
			return seats[0]
		}
		return seats[1+(i-1+rot)%(m-1)]
	}
	for i := 0; i < m/2; i++ {
		a, b := at(i), at(m-1-i)
		switch {
		case a == "":
			alone = b
		case b == "":
			alone = a
		default:
			pairs = append(pairs, Pair{Server: a, Client: b})
		}
	}
	return pairs, alone
}

// DomainPairs pairs nodes by a label domain (a rack, an NVLink clique): within, each domain's
// nodes are paired among themselves by RingPairs, so a pair never crosses a domain; across,
// the nodes sorted by (domain, name) are split in two halves and the halves paired seat by
// seat, rotated one seat per round, so each pair spans two domains whenever no domain holds
// more than half the nodes. Nodes left without a partner are returned as alone (each gets a
// partner that passed, as RingPairs' odd node does). A node without the label is its own
// domain "" (within: paired with the other unlabelled nodes).
func DomainPairs(nodes []string, domainOf map[string]string, round int32, across bool) (pairs []Pair, alone []string) {
	sorted := append([]string(nil), nodes...)
	sort.Slice(sorted, func(i, j int) bool {
		if di, dj := domainOf[sorted[i]], domainOf[sorted[j]]; di != dj {
			return di < dj
		}
		return sorted[i] < sorted[j]
	})
	if !across {
		groups := map[string][]string{}
		var order []string
		for _, n := range sorted {
			d := domainOf[n]
			if _, seen := groups[d]; !seen {
				order = append(order, d)
			}
			groups[d] = append(groups[d], n)
		}
		for _, d := range order {
			p, a := RingPairs(groups[d], round)
			pairs = append(pairs, p...)
			if a != "" {
				alone = append(alone, a)
			}
		}
		return pairs, alone
	}
	half := len(sorted) / 2
	first, second := sorted[:half], sorted[half:]
	if len(sorted)%2 == 1 {
		alone = append(alone, second[len(second)-1])
		second = second[:len(second)-1]
	}
	rot := 0
	if half > 0 {
		rot = int(max(round-1, 0)) % half
	}
	for i, a := range first {
		b := second[(i+rot)%half]
		if a > b {
			a, b = b, a
		}
		pairs = append(pairs, Pair{Server: a, Client: b})
	}
	return pairs, alone
}

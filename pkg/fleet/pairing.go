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

package rules

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// Kinds are the registered profiles in the order of spec.transport's enum.
type Kinds []benchkind.Profile

// set is some kinds' transport names, in the enum's order.
type set []string

// LoadKinds returns the registered kinds in the order given (spec.transport's enum,
// API.Transports), failing on a name without a profile or a registered kind left out.
func LoadKinds(order []string) (Kinds, error) {
	var ks Kinds
	for _, t := range order {
		k, ok := benchkind.Lookup(sbv1.Transport(t))
		if !ok {
			return nil, fmt.Errorf("spec.transport admits %s, which has no benchkind profile", t)
		}
		ks = append(ks, k)
	}
	if n := len(benchkind.Transports()); n != len(ks) {
		return nil, fmt.Errorf("%d Kinds are registered but spec.transport's enum admits %d: add the new one to the enum", n, len(ks))
	}
	return ks, nil
}

func (ks Kinds) where(pred func(benchkind.Admission) bool) set {
	var s set
	for _, k := range ks {
		if pred(k.Admission) {
			s = append(s, string(k.Transport))
		}
	}
	return s
}

// owners are the kinds whose own options sit in spec.<field>.
func (ks Kinds) owners(field string) set {
	return ks.where(func(a benchkind.Admission) bool { return a.SpecField == field })
}

// only is the one kind whose own options sit in spec.<field>; a rule naming that field's
// settings (a burst that must fit a ring) holds for that kind's numbers alone.
func (ks Kinds) only(field string) benchkind.Profile {
	for _, k := range ks {
		if k.Admission.SpecField == field {
			return k
		}
	}
	panic("no kind owns spec." + field)
}

func (s set) minus(o set) set {
	var out set
	for _, t := range s {
		if !contains(o, t) {
			out = append(out, t)
		}
	}
	return out
}

func contains(s set, t string) bool {
	for _, x := range s {
		if x == t {
			return true
		}
	}
	return false
}

// is is the CEL test that the transport at root (self, self.spec) is one of s.
func (s set) is(root string) string {
	switch len(s) {
	case 0:
		return "false"
	case 1:
		return root + ".transport == '" + s[0] + "'"
	}
	return root + ".transport in " + s.list()
}

// isNot is is's negation, written as the rules read best.
func (s set) isNot(root string) string {
	switch len(s) {
	case 0:
		return "true"
	case 1:
		return root + ".transport != '" + s[0] + "'"
	}
	return "!(" + s.is(root) + ")"
}

func (s set) list() string { return "['" + strings.Join(s, "', '") + "']" }

// names reads "TCP and UDP", "A, B and C".
func (s set) names() string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// latency is the CEL test that spec.<field>'s mode is Latency (a ping-pong).
func latency(field string) string { return latencyAt("self", field) }

// latencyAt is latency for the spec at root (self.template.spec in a fleet).
func latencyAt(root, field string) string {
	f := root + "." + field
	return "has(" + f + ") && has(" + f + ".mode) && " + f + ".mode == 'Latency'"
}

// latencyFields are the spec fields whose mode Latency ping-pongs, for the kinds in s.
func (ks Kinds) latencyFields(s set) []string {
	var fields []string
	for _, k := range ks {
		a := k.Admission
		if a.LatencyMode && contains(s, string(k.Transport)) && !containsString(fields, a.SpecField) {
			fields = append(fields, a.SpecField)
		}
	}
	return fields
}

func containsString(xs []string, x string) bool { return contains(set(xs), x) }

// inLatency: the spec at root is one of the kinds in s, in its ping-pong mode.
func (ks Kinds) inLatency(root string, s set) string {
	var parts []string
	for _, f := range ks.latencyFields(s) {
		parts = append(parts, "("+ks.owners(f).is(root)+" && "+latencyAt(root, f)+")")
	}
	if len(parts) == 0 {
		return "false"
	}
	return "(" + strings.Join(parts, " || ") + ")"
}

// paced: a kind that paces its sender and counts every loss, not in its ping-pong mode.
func (ks Kinds) paced() string {
	search := ks.where(func(a benchkind.Admission) bool { return a.RateSearch })
	var lat []string
	for _, f := range ks.latencyFields(search) {
		lat = append(lat, "("+latency(f)+")")
	}
	if len(lat) == 0 {
		return search.is("self")
	}
	return search.is("self") + " && !" + strings.Join(lat, " && !")
}

func latencyMode(a benchkind.Admission) bool { return a.LatencyMode }

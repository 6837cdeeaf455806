package rules

import (
	"fmt"

	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// specFieldRules: a kind's own spec field is refused on every other kind.
func (ks Kinds) specFieldRules() []Rule {
	var rules []Rule
	seen := map[string]bool{}
	for _, k := range ks {
		f := k.Admission.SpecField
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		owners := ks.owners(f)
		msg := fmt.Sprintf("spec.%s applies to transports %s only: remove it", f, owners.names())
		if len(owners) == 1 {
			msg = fmt.Sprintf("spec.%s applies to transport %s only: remove it or set transport: %s", f, owners[0], owners[0])
		}
		rules = append(rules, Rule{"!has(self." + f + ") || " + owners.is("self"), msg})
	}
	return rules
}

// maxPayloadRules: a kind's payload bound of its own, one frame whatever topology.mtu says.
func (ks Kinds) maxPayloadRules() []Rule {
	var rules []Rule
	for _, k := range ks {
		n := k.Admission.MaxPayloadBytes
		if n == 0 {
			continue
		}
		t := string(k.Transport)
		rules = append(rules, Rule{
			fmt.Sprintf("self.transport != '%s' || !has(self.matrix.payloadBytes) || self.matrix.payloadBytes.all(p, p <= %d)", t, n),
			fmt.Sprintf("%s payloads are at most %d bytes whatever topology.mtu says: the data plane sends one %d-byte frame "+
				"at most (%d - 20 IPv4 - 8 UDP); lower matrix.payloadBytes", t, n, n+28, n+28)})
	}
	return rules
}

// oneNodeRules: a kind whose ranks all sit on one node runs Loopback.
func (ks Kinds) oneNodeRules() []Rule {
	var rules []Rule
	for _, k := range ks {
		if msg := k.Admission.OneNode; msg != "" {
			rules = append(rules, Rule{fmt.Sprintf("self.transport != '%s' || self.topology.mode == 'Loopback'", k.Transport), msg})
		}
	}
	return rules
}

// gpuPairRules: a kind of GPUs across two nodes needs the second node's GPUs with CrossNode,
// and leaves them unset with Loopback.
func (ks Kinds) gpuPairRules() []Rule {
	var rules []Rule
	for _, k := range ks {
		a, t := k.Admission, string(k.Transport)
		if a.GPUs == "" || a.OneNode != "" {
			continue
		}
		rules = append(rules,
			Rule{fmt.Sprintf("self.transport != '%s' || self.topology.mode != 'CrossNode' || "+
				"(has(self.topology.client.gpus) && self.topology.client.gpus >= 1)", t), gpusMessage(k)},
			Rule{fmt.Sprintf("self.transport != '%s' || self.topology.mode == 'CrossNode' || !has(self.topology.client.gpus) || "+
				"self.topology.client.gpus == 0", t),
				fmt.Sprintf("with topology.mode Loopback, %s's ranks are the topology.server.gpus GPUs of one pod: leave "+
					"topology.client.gpus unset (it counts the GPUs of a CrossNode bench's second node)", t)})
	}
	return rules
}

// GPUs are SpiralBench's: a kind of GPUs needs topology.server.gpus. They sit on the root
// so that a fleet's template and a suite step (rules of their own) may get them from the node.
func GPUs(ks Kinds) []Rule {
	var rules []Rule
	for _, k := range ks {
		if k.Admission.GPUs != "" {
			rules = append(rules, Rule{fmt.Sprintf("self.spec.transport != '%s' || "+
				"(has(self.spec.topology.server.gpus) && self.spec.topology.server.gpus >= 1)", k.Transport), gpusMessage(k)})
		}
	}
	return rules
}

// gpusMessage is a bench's refusal without the GPUs its kind needs: on one node, with
// topology.mode Loopback; across two, with the second node's too.
func gpusMessage(k benchkind.Profile) string {
	a := k.Admission
	if a.OneNode != "" {
		return a.GPUs + ": set topology.mode Loopback and topology.server.gpus " + a.GPUCount
	}
	return a.GPUs + ": set topology.server.gpus (and topology.client.gpus with CrossNode) " + a.GPUCount
}

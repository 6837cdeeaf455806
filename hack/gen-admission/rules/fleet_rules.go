package rules

import (
	"fmt"

	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// template is the spec a fleet stamps its benches from.
const template = "self.template.spec"

// fleetSets are the kind sets a fleet's rules name.
type fleetSets struct {
	// pairable: two nodes apart with no GPUs to count, so a Loopback template may be paired
	// into CrossNode benches.
	pairable set
	// gpus: the kinds that need a GPU count.
	gpus set
	// streams: the kinds with stream figures (throughput, latency) stragglers and baselines compare.
	streams set
	inCell  set
}

func (ks Kinds) fleetSets() fleetSets {
	return fleetSets{
		pairable: ks.where(func(a benchkind.Admission) bool { return a.OneNode == "" && a.GPUs == "" }),
		gpus:     ks.where(func(a benchkind.Admission) bool { return a.GPUs != "" }),
		streams:  ks.where(func(a benchkind.Admission) bool { return !a.SweepInCell }),
		inCell:   ks.where(func(a benchkind.Admission) bool { return a.SweepInCell }),
	}
}

// latencyMetrics: neither stragglers nor baseline compares a ping-pong's percentiles.
const latencyMetrics = "((!has(self.stragglers) || !has(self.stragglers.metric) || " +
	"!(self.stragglers.metric in ['LatencyP50Nanoseconds', 'LatencyP99Nanoseconds'])) && " +
	"(!has(self.baseline) || !has(self.baseline.metric) || " +
	"!(self.baseline.metric in ['LatencyP50Nanoseconds', 'LatencyP99Nanoseconds'])))"

// Fleet are SpiralBenchFleetSpec's rules that name kinds: what its template may be paired
// into, compared by and needs.
func Fleet(ks Kinds) []Rule {
	f := ks.fleetSets()
	latencyKinds := ks.where(latencyMode)
	rules := []Rule{
		{"!has(self.template) || (!has(" + template + ".topology.mode) || " + template + ".topology.mode == 'Loopback' || " +
			f.pairable.isNot(template) + ")",
			"the template stays Loopback: remove template.spec.topology.mode, and for CrossNode benches between pool nodes " +
				"set spec.pairing: Ring"},
		{"!has(self.template) || (!has(" + template + ".topology.mode) || " + template + ".topology.mode == 'Loopback' || " +
			f.pairable.is(template) + ")",
			"the template stays Loopback: remove template.spec.topology.mode (a RawEthernet, GPUCopy or NCCL fleet benches " +
				"each node alone)"},
	}
	for _, k := range ks {
		if a := k.Admission; a.OneNode != "" && a.GPUs == "" {
			rules = append(rules, Rule{
				fmt.Sprintf("!has(self.template) || (self.pairing != 'Ring' || %s.transport != '%s')", template, k.Transport),
				fmt.Sprintf("%s runs in one pod on one node: use pairing None with it", k.Transport)})
		}
	}
	rules = append(rules,
		Rule{"!has(self.template) || (self.pairing != 'Ring' || " + f.gpus.isNot(template) + ")",
			"pairing Ring stamps CrossNode benches from a Loopback template: GPUCopy measures one node, and NCCL's second " +
				"node needs topology.client.gpus, which a Loopback template refuses; use pairing None with them"},
		Rule{"!has(self.template) || (" + f.inCell.isNot(template) + " || (!has(self.stragglers) && !has(self.baseline)))",
			"spec.stragglers and spec.baseline compare a stream figure of the headline cell (RxMbps, TxMbps, " +
				"PacketsPerSecond, latency), which " + f.inCell.names() + " benches do not produce: remove stragglers and baseline"},
		Rule{"!has(self.template) || (" + f.inCell.is(template) + " || " + ks.inLatency(template, latencyKinds) + " || " +
			latencyMetrics + ")",
			"stragglers.metric and baseline.metric LatencyP50Nanoseconds and LatencyP99Nanoseconds read a ping-pong's " +
				"percentiles, which only socket.mode Latency (TCP, UDP) and roce.mode Latency measure, and the template " +
				"streams: compare RxMbps, TxMbps or PacketsPerSecond instead"},
		Rule{"!has(self.suite) || (!has(self.stragglers) && !has(self.baseline)) || (has(self.suite.steps) && " +
			"self.suite.steps.exists(s, has(s.template) && " + f.streams.is("s.template.spec") + ")) || " +
			"(has(self.suite.builtin) && !(has(self.suite.steps) && self.suite.steps.exists(s, s.name == 'tcp') && " +
			"(self.suite.builtin == 'Quick' || self.suite.steps.exists(s, s.name == 'udp'))))",
			"spec.stragglers and spec.baseline compare a stream figure (RxMbps, TxMbps, PacketsPerSecond, latency) of the " +
				"first suite step that has one, and no step of this suite produces one (NCCL, GPUCopy and external checks do " +
				"not): add a TCP, UDP, RoCE or RawEthernet step, or remove stragglers and baseline"},
		Rule{"!has(self.suite) || " + latencyMetrics + " || (has(self.suite.steps) && self.suite.steps.exists(s, " +
			"has(s.template) && " + ks.inLatency("s.template.spec", latencyKinds) + "))",
			"stragglers.metric and baseline.metric LatencyP50Nanoseconds and LatencyP99Nanoseconds read a ping-pong's " +
				"percentiles, which only socket.mode Latency (TCP, UDP) and roce.mode Latency steps measure, and no step of " +
				"this suite does (the built-in suites stream): add such a step, or compare RxMbps, TxMbps or " +
				"PacketsPerSecond instead"},
	)
	for _, k := range ks {
		if a := k.Admission; a.GPUs != "" {
			rules = append(rules, Rule{
				fmt.Sprintf("!has(self.template) || %s.transport != '%s' || (%s)", template, k.Transport, serverGPUs(template)),
				a.GPUs + ": set template.spec.topology.server.gpus " + a.GPUCount})
		}
	}
	return rules
}

// SuiteStep are a suite step's rules that name kinds: what a Pair step stamps, and GPUs.
func SuiteStep(ks Kinds) []Rule {
	f := ks.fleetSets()
	rules := []Rule{{"!has(self.template) || !has(self.placement) || self.placement == 'Node' || " + f.pairable.is(template),
		"a Pair step stamps a CrossNode bench: use transport TCP, UDP or RoCE with placement Pair, or set placement Node"}}
	for _, k := range ks {
		if a := k.Admission; a.GPUs != "" {
			rules = append(rules, Rule{
				fmt.Sprintf("!has(self.template) || %s.transport != '%s' || (has(self.useAllGPUs) && self.useAllGPUs) || (%s)",
					template, k.Transport, serverGPUs(template)),
				a.GPUs + ": set the step's useAllGPUs: true (every GPU of the node) or template.spec.topology.server.gpus " +
					a.GPUCount})
		}
	}
	return append(rules, Rule{"!has(self.useAllGPUs) || !self.useAllGPUs || (has(self.template) && " + f.gpus.is(template) + ")",
		"useAllGPUs sets an NCCL or GPUCopy bench's topology.server.gpus: remove it from this step"})
}

// serverGPUs: the spec at root counts at least one GPU on its server side.
func serverGPUs(root string) string {
	return "has(" + root + ".topology.server.gpus) && " + root + ".topology.server.gpus >= 1"
}

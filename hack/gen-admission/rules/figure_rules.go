package rules

// figureRules: acceptance rules on the figures one kind alone produces (an NCCL bench's bus
// bandwidth, a copy bench's rates) and on ceilings, which a latency-mode bench has none of.
func (ks Kinds) figureRules() []Rule {
	nccl, copies := ks.owners("nccl"), ks.owners("gpuCopy")
	return []Rule{
		{nccl.is("self") + " || " + noRules + " || self.acceptance.rules.all(r, r.metric != 'NCCLBusbwMBps')",
			"an acceptance rule on NCCLBusbwMBps reads the bus bandwidth of an NCCL collective, which transport " +
				nccl.names() + " alone measures: remove the rule or check this transport's own figures"},
		{copies.is("self") + " || " + noRules + " || self.acceptance.rules.all(r, !(r.metric in ['CopyH2DMBps', 'CopyD2HMBps']))",
			"acceptance rules on CopyH2DMBps or CopyD2HMBps read host-device copy rates, which transport " + copies.names() +
				" alone measures: remove the rule or check this transport's own figures"},
		{"!(" + ks.inLatency("self", ks.where(latencyMode)) + ") || " + noRules +
			" || self.acceptance.rules.all(r, !has(r.minFractionOfCeiling))",
			"minFractionOfCeiling judges a stream's throughput against its path's ceiling, and a latency-mode bench " +
				"measures a ping-pong, which has no ceiling model: use operator and value"},
	}
}

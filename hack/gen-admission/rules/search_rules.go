package rules

// searchRules: run.search, NoDropRate and acceptance by what the kind and its mode produce.
func (ks Kinds) searchRules(inCell, search, socket set) []Rule {
	paced := ks.paced()
	ndr := "self.acceptance.rules.all(r, !(r.metric in ['NDRMbps', 'NDRMbpsStdDev', 'PDRMbps']))"
	return []Rule{
		{"!has(self.run.search) || " + search.is("self") + " || (" + socket.minus(search).is("self") + " && " +
			latency("socket") + ")",
			"run.search (NDR/PDR search) needs a paced transport that counts every lost datagram or frame: use transport " +
				"UDP or RawEthernet, or remove run.search"},
		{"self.matrix.preset != 'NoDropRate' || has(self.run.search) || " + search.isNot("self") + " || (" + latency("socket") + ")",
			"matrix.preset NoDropRate runs a no-drop-rate search in each cell: set run.search (for example run.search: {}) or " +
				"choose another preset"},
		{"self.matrix.preset != 'NoDropRate' || " + inCell.is("self") + " || (" + paced + ")",
			"matrix.preset NoDropRate searches each cell's no-drop rate, which needs a paced stream that counts every lost " +
				"datagram or frame: use transport UDP (socket.mode Bandwidth) or RawEthernet, or choose another preset"},
		{"!has(self.run.search) || " + socket.isNot("self") + " || !has(self.socket) || !has(self.socket.mode) || " +
			"self.socket.mode != 'Latency'",
			"run.search paces a stream to find its no-drop rate, and socket.mode Latency has one message in flight: remove " +
				"run.search, or set socket.mode Bandwidth"},
		{inCell.isNot("self") + " || " + noRules + " || self.acceptance.rules.all(r, !(r.metric in ['RxMbps', 'TxMbps', " +
			"'RxMbpsStdDev', 'PacketsPerSecond', 'Drops', 'LossPPM', 'CPUTXMilliPercent', 'CPURXMilliPercent', " +
			"'GPUSMMilliPercent', 'LatencyP50Nanoseconds', 'LatencyP99Nanoseconds', 'LatencyP999Nanoseconds', 'NDRMbps', " +
			"'NDRMbpsStdDev', 'PDRMbps', 'RxMbpsCVMilliPercent']))",
			"acceptance.rules check figures of a packet or message stream (throughput, drops, loss, CPU and GPU busy, latency, " +
				"NDR), which transports " + inCell.names() + " do not produce: their figures are the rows of " +
				"status.cellResults[].repeatResults[].collective and .copies; remove these rules"},
		{inCell.is("self") + " || !(" + paced + ") || has(self.run.search) || " + noRules + " || " + ndr,
			"acceptance rules on NDRMbps, NDRMbpsStdDev or PDRMbps read what run.search finds, and this bench has no " +
				"run.search: check RxMbps or LossPPM instead, or set run.search (it replaces matrix.targetRatesMbps and the " +
				"preset DropCurve; PDRMbps also needs run.search.pdrTolerancePPM)"},
		{inCell.is("self") + " || (" + paced + ") || " + noRules + " || " + ndr,
			"acceptance rules on NDRMbps, NDRMbpsStdDev or PDRMbps read what run.search finds, which only transport UDP in " +
				"socket.mode Bandwidth and RawEthernet run: check RxMbps or LossPPM instead"},
		{inCell.is("self") + " || " + ks.inLatency("self", ks.where(latencyMode)) + " || " + noRules + " || " +
			"self.acceptance.rules.all(r, !(r.metric in ['LatencyP50Nanoseconds', 'LatencyP99Nanoseconds', " +
			"'LatencyP999Nanoseconds']))",
			"acceptance rules on LatencyP50Nanoseconds, LatencyP99Nanoseconds or LatencyP999Nanoseconds read a ping-pong's " +
				"percentiles, which only socket.mode Latency (TCP, UDP) and roce.mode Latency measure, and this bench streams: " +
				"check RxMbps, Drops or LossPPM instead, or measure latency in a SpiralBench of its own in one of those modes"},
		{inCell.is("self") + " || ((has(self.workload) && self.workload.kind != 'None') || (has(self.matrix.workloads) && " +
			"self.matrix.workloads.exists(w, w != 'None')) || (has(self.rawEthernet) && has(self.rawEthernet.forward) && " +
			"((has(self.matrix.forwardWorks) && size(self.matrix.forwardWorks) > 0) ? " +
			"self.matrix.forwardWorks.exists(w, w.startsWith('GPU')) : (self.matrix.preset == 'ForwardBurst' || " +
			"(has(self.rawEthernet.forward.work) && self.rawEthernet.forward.work.startsWith('GPU')))))) || " + noRules +
			" || self.acceptance.rules.all(r, r.metric != 'GPUSMMilliPercent')",
			"an acceptance rule on GPUSMMilliPercent reads the GPU's SM utilisation while a GPU workload (spec.workload, " +
				"matrix.workloads) or GPU forward work runs, and this bench runs none: remove the rule"},
	}
}

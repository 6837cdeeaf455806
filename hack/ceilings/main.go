// Command ceilings prints, for data plane summaries (each the --summary-file of one run made
// outside a cluster, on a GPU machine for instance), each run's headline figure against its
// ceiling as `sbctl explain` computes it for a bench: the summary goes through the operator's
// own parsing (pkg/summary, pkg/aggregate) into a cell, and pkg/explain judges it. A markdown
// table for docs/benchmarks/ceilings.md.
//
// Usage: go run ./hack/ceilings -transport GPUCopy [-mode Loopback] [-mtu 9000] [-vdev net_ring0] FILE...
// A FILE.summary.json without its environment reads it from FILE.env (--environment-file).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/aggregate"
	"github.com/spiralbench/spiralbench/pkg/explain"
	"github.com/spiralbench/spiralbench/pkg/figure"
	"github.com/spiralbench/spiralbench/pkg/summary"
)

func main() {
	transport := flag.String("transport", "TCP", "the bench's spec.transport")
	mode := flag.String("mode", "Loopback", "topology.mode")
	mtu := flag.Int("mtu", 9000, "topology.mtu")
	vdev := flag.String("vdev", "", "a raw bench's DPDK virtual device on both ports (net_ring0)")
	rxCore := flag.Int("rx-core", -1, "the server's pinned poller core (--rx-cores), so the bound names it")
	txCore := flag.Int("tx-core", -1, "the client's pinned poller core (--tx-cores)")
	flag.Parse()
	fmt.Println("| run | measured | ceiling | fraction | bound by | model |")
	fmt.Println("|---|---:|---:|---:|---|---|")
	for _, file := range flag.Args() {
		if err := row(file, sbv1.Transport(*transport), sbv1.TopologyMode(*mode), int32(*mtu), *vdev, int32(*rxCore), int32(*txCore)); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			os.Exit(1)
		}
	}
}

// row prints a line per figure the kind has a ceiling model for (a copy's H2D, D2H and D2D).
func row(file string, transport sbv1.Transport, mode sbv1.TopologyMode, mtu int32, vdev string, rxCore, txCore int32) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s, err := summary.Parse(string(data))
	if err != nil {
		return err
	}
	if s.Env == nil { // the capture a summary had no room for: --environment-file beside it
		if msg, err := os.ReadFile(strings.TrimSuffix(file, ".summary.json") + ".env"); err == nil {
			m, err := summary.ParseEnvMessage(string(msg))
			if err != nil {
				return err
			}
			s.Env = m.Env
		}
	}
	parts := []summary.Part{{Summary: &s, Receives: true, Sends: true}}
	sb := &sbv1.SpiralBench{Spec: sbv1.SpiralBenchSpec{Transport: transport}}
	sb.Spec.Topology.Mode, sb.Spec.Topology.MTU = mode, mtu
	if rxCore >= 0 {
		sb.Spec.Topology.Server.Cores = &sbv1.CoreMap{Pollers: []int32{rxCore}}
	}
	if txCore >= 0 {
		sb.Spec.Topology.Client.Cores = &sbv1.CoreMap{Pollers: []int32{txCore}}
	}
	if vdev != "" {
		port := &sbv1.PortSource{VirtualDevice: vdev}
		sb.Spec.RawEthernet = &sbv1.RawEthernetSpec{TXPort: port, RXPort: port}
	}
	if env := summary.Environment(parts); env != nil {
		sb.Status.Environment = &sbv1.Environment{}
		env.Fill(sb.Status.Environment)
	}
	cell := sbv1.CellResult{Index: 0, Headline: true, Parameters: sbv1.CellParameters{PayloadBytes: int32(s.PayloadBytes), Pairs: int32(s.Pairs),
		Batch: 1, Queues: sbv1.QueueCell{TX: 1, RX: 1}, Workload: sbv1.WorkloadNone},
		RepeatResults: []sbv1.RepeatResult{summary.Merge(parts, 0, 0)}}
	aggregate.Fill(&cell)
	for _, fig := range figure.Names() {
		if explain.Modelled(sb, fig) {
			printRow(file, explain.CellFigure(sb, &cell, fig))
		}
	}
	return nil
}

func printRow(file string, e explain.Explanation) {
	value := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return explain.FormatValue(e.Unit, *v)
	}
	fraction := "-"
	if e.Fraction != nil {
		fraction = fmt.Sprintf("%.2f", *e.Fraction)
	}
	model := e.Model
	if model == "" {
		model = e.Unknown
	}
	if e.Measured == nil {
		return // a figure this run did not measure
	}
	fmt.Printf("| %s %s | %s | %s | %s | %s | %s |\n", filepath.Base(file), e.Figure, value(e.Measured), value(e.Ceiling), fraction, e.BoundBy, model)
}

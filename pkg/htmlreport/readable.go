package htmlreport

import (
	"encoding/json"
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// readable turns a cell's message into a sentence: a termination message that is JSON gives
// its reason field, anything else is kept as it is.
func readable(msg string) string {
	msg = strings.TrimSpace(msg)
	if !strings.HasPrefix(msg, "{") {
		return msg
	}
	var fields map[string]any
	if json.Unmarshal([]byte(msg), &fields) != nil {
		return msg
	}
	for _, k := range []string{"reason", "invalid_reason", "error", "message", "detail"} {
		if s, ok := fields[k].(string); ok && s != "" {
			return s
		}
	}
	return msg
}

var operatorSymbols = map[sbv1.Operator]string{
	sbv1.OperatorGreaterThanOrEqual: "≥", sbv1.OperatorGreaterThan: ">", sbv1.OperatorLessThanOrEqual: "≤",
	sbv1.OperatorLessThan: "<", sbv1.OperatorEqual: "=",
}

// ruleCheck says a rule as a reader reads it, with the unit: RxMbps ≥ 90000 (90 Gb/s).
func ruleCheck(r sbv1.AcceptanceRule) string {
	op := operatorSymbols[r.Operator]
	if op == "" {
		op = string(r.Operator)
	}
	text := fmt.Sprintf("%s %s %d", r.Metric, op, r.Value)
	if f, ok := figure.Lookup(string(r.Metric)); ok && f.Unit == figure.Mbps {
		text += fmt.Sprintf(" (%s %s)", f.Unit.FormatPrec(float64(r.Value), -1), f.Unit.Shown)
	}
	return text
}

// ruleCells says which cells a rule judges: the headline cell, each cell, or a selection.
func ruleCells(s sbv1.CellSelector) string {
	var parts []string
	if s.PayloadBytes != nil {
		parts = append(parts, fmt.Sprintf("payload %d B", *s.PayloadBytes))
	}
	if s.Batch != nil {
		parts = append(parts, fmt.Sprintf("batch %d", *s.Batch))
	}
	if s.Pairs != nil {
		parts = append(parts, fmt.Sprintf("%d pairs", *s.Pairs))
	}
	if s.Queues != nil {
		parts = append(parts, fmt.Sprintf("queues %dt%dr", s.Queues.TX, s.Queues.RX))
	}
	if s.TargetRateMbps != nil {
		parts = append(parts, fmt.Sprintf("target %d Mb/s", *s.TargetRateMbps))
	}
	switch {
	case len(parts) > 0 && s.Scope == sbv1.CellScopeEach:
		return "each cell with " + strings.Join(parts, ", ")
	case len(parts) > 0:
		return "the cell with " + strings.Join(parts, ", ")
	case s.Scope == sbv1.CellScopeEach:
		return "each cell"
	}
	return "the headline cell"
}

// mtuNote says when the spec's MTU is not the link's: the spec asks, the link decides.
func mtuNote(sb *sbv1.SpiralBench) string {
	e := sb.Status.Environment
	mtu := sb.Spec.Topology.MTU
	if e == nil || mtu == 0 {
		return ""
	}
	var differ []string
	for _, n := range e.NICs {
		if n.MTU > 0 && n.MTU != mtu {
			differ = append(differ, fmt.Sprintf("%s %d", n.Interface, n.MTU))
		}
	}
	if len(differ) == 0 {
		return ""
	}
	return fmt.Sprintf("topology.mtu asks for %d, but the link's MTU was %s: the figures are the link's", mtu, strings.Join(differ, ", "))
}

package summary

import (
	"bytes"
	"encoding/json"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/benchkind"
)

// readKindParts keeps the parts of the summary that a kind declares as its own results
// (benchkind.Results.SummaryKey) and checks each with the kind's Apply, so a malformed part
// refuses the summary. A part written as null is absent.
func (s *Summary) readKindParts(msg string) error {
	kinds := benchkind.ResultKinds()
	if len(kinds) == 0 {
		return nil
	}
	var top map[string]json.RawMessage
	dec := json.NewDecoder(strings.NewReader(strings.TrimSpace(msg)))
	if err := dec.Decode(&top); err != nil {
		return err
	}
	for _, k := range kinds {
		key := k.Results.SummaryKey
		part, ok := top[key]
		if key == "" || k.Results.Apply == nil || !ok || bytes.Equal(bytes.TrimSpace(part), []byte("null")) {
			continue
		}
		var scratch sbv1.RepeatResult
		if err := k.Results.Apply(part, &scratch); err != nil {
			return err
		}
		if s.KindParts == nil {
			s.KindParts = map[string]json.RawMessage{}
		}
		s.KindParts[key] = part
	}
	return nil
}

// applyKindParts adds each kind's results to the repeat from the first rank that carries them:
// a sweep is reported whole by one rank (NCCL: rank 0, which gathered the others).
func applyKindParts(parts []Part, r *sbv1.RepeatResult) {
	for _, k := range benchkind.ResultKinds() {
		for _, p := range parts {
			if part, ok := p.Summary.KindParts[k.Results.SummaryKey]; ok {
				_ = k.Results.Apply(part, r) // checked when the summary was parsed
				break
			}
		}
	}
}

package benchkind

import (
	"encoding/json"
	"fmt"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// copyLocal is the local part of a copy bench's summary: what each GPU measured by itself
// (dataplane/src/transports/gpucopy/local_spec.hpp, local_part).
type copyLocal struct {
	Local     []localFigure `json:"local"`
	LocalNote string        `json:"local_note"`
}

// localFigure is [device, test, peer, value x1000, cv milli-percent, repeats].
type localFigure struct {
	Device, Peer   int32
	Test           string
	Milli, CVMilli int64
	Repeats        int32
}

// UnmarshalJSON reads the six-element array form.
func (f *localFigure) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || len(raw) != 6 {
		return fmt.Errorf("gpucopy local figure %s: want [device, test, peer, value_milli, cv_milli_percent, repeats]", b)
	}
	for i, dst := range []any{&f.Device, &f.Test, &f.Peer, &f.Milli, &f.CVMilli, &f.Repeats} {
		if err := json.Unmarshal(raw[i], dst); err != nil {
			return fmt.Errorf("gpucopy local figure %s: %w", b, err)
		}
	}
	return nil
}

// localTestNames: the data plane's test names as the status spells them.
var localTestNames = map[string]string{"sm_read": "SMRead", "sm_write": "SMWrite", "latency_device": "LatencyDevice",
	"latency_host": "LatencyHost", "latency_peer": "LatencyPeer"}

func (l *copyLocal) addTo(r *sbv1.CopyResult) {
	for _, f := range l.Local {
		name, ok := localTestNames[f.Test]
		if !ok || len(r.Local) >= 128 {
			continue // a test this operator does not know, from a newer data plane: not kept
		}
		r.Local = append(r.Local, sbv1.CopyLocalFigure{Device: f.Device, Test: name, Peer: f.Peer,
			MilliValue: f.Milli, CVMilliPercent: f.CVMilli, Repeats: f.Repeats})
	}
	r.LocalNote = clip(l.LocalNote, 240)
}

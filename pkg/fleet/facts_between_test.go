package fleet

import (
	"strings"
	"testing"
)

func eightGPUs(edit func(g []GPUFact)) Hardware {
	g := make([]GPUFact, 8)
	for i := range g {
		g[i] = GPUFact{Address: "0000:" + string(rune('a'+i)) + "b:00.0", Gen: 5, MaxGen: 5, Width: 16, MaxWidth: 16, NVLinks: 18, NVLinksActive: 18}
	}
	if edit != nil {
		edit(g)
	}
	return Hardware{GPUsSeen: i32(int32(len(g))), GPUs: g}
}

func reasonText(rs []Reason) string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Code)+" "+r.Detail)
	}
	return strings.Join(out, "; ")
}

// Between rounds a capture is judged against the parts' maximum and against the last round:
// unchanged healthy facts raise nothing; a link trained down is named once though both rules
// see it; a drop the maximum cannot show (the part reports no maximum) is still caught.
func TestFactsBetweenRoundsNameWhatChanged(t *testing.T) {
	last := eightGPUs(nil)
	for name, c := range map[string]struct {
		now  Hardware
		want string
	}{
		"unchanged": {eightGPUs(nil), ""},
		"downtrained": {eightGPUs(func(g []GPUFact) { g[0].Gen, g[0].Width = 3, 8 }),
			"PCIeDowntrained GPU 0000:ab:00.0 Gen3 x8 (max Gen5 x16)"},
		"narrower, no maximum known": {eightGPUs(func(g []GPUFact) { g[2].Width, g[2].MaxWidth = 8, 0 }),
			"PCIeDowntrained GPU 0000:cb:00.0 Gen5 x8 (was Gen5 x16)"},
		"an idle GPU's slower generation is power saving": {eightGPUs(func(g []GPUFact) { g[1].Gen, g[1].MaxGen, g[1].PState = 1, 0, 8 }), ""},
		"NVLink down": {eightGPUs(func(g []GPUFact) { g[3].NVLinksActive = 12 }), "NVLinkDown GPU3 12/18"},
		"every NVLink down, not expected by class": {eightGPUs(func(g []GPUFact) { g[3].NVLinksActive = 0 }),
			"NVLinkDown GPU3 0/18 (was 18)"},
		"GPU gone": {func() Hardware { h := eightGPUs(nil); h.GPUs = h.GPUs[1:]; h.GPUsSeen = i32(7); return h }(),
			"GPUMissing 7/8; GPUMissing GPU 0000:ab:00.0 gone since the last round"},
		"no NVML: GPUs not known": {Hardware{}, ""},
	} {
		if got := reasonText(FactsBetweenRounds(c.now, last, 8)); got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// A facts pod's termination message is the data plane's summary: its capture is read as a
// bench's is, and a message without one is refused rather than read as healthy.
func TestFactsCaptureReadsTheSummary(t *testing.T) {
	msg := `{"v":1,"state":"Valid","env":{"gpus":[["0000:1b:00.0",3,5,8,16,256,512,0,18,12,13281,-1,-1,0,0]],"gpus_note":""}}`
	h, err := FactsCapture(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.GPUs) != 1 || h.GPUs[0].Width != 8 || h.GPUs[0].NVLinksActive != 12 || h.GPUsRequested != 0 {
		t.Fatalf("%+v", h)
	}
	if _, err := FactsCapture(`{"v":1,"state":"Valid"}`); err == nil {
		t.Error("a summary without env was read")
	}
	if _, err := FactsCapture("segfault"); err == nil {
		t.Error("a log tail was read")
	}
}

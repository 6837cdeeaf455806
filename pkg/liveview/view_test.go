package liveview

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func line(role string, tMillis int64, rx, tx []int64) []byte {
	var streams []string
	for i := range rx {
		streams = append(streams, fmt.Sprintf(`{"id":%d,"tx_bytes":%d,"rx_bytes":%d,"drops":%d}`, i, tx[i], rx[i], i))
	}
	return []byte(fmt.Sprintf(`{"event":"progress","role":%q,"unit":"pair","t_ms":%d,"streams":[%s]}`, role, tMillis, strings.Join(streams, ",")))
}

func TestParseIgnoresOtherLines(t *testing.T) {
	for _, l := range []string{"", "spiral-dataplane: listening on :5201", `{"event":"result","v":1}`, `{"event":"progress"`, `{"event":"progress",}`, `{"note":"\"event\":\"progress\""}`} {
		if _, ok := Parse([]byte(l)); ok {
			t.Errorf("%q parsed as progress", l)
		}
	}
	if p, ok := Parse([]byte(`{"role":"client","streams":[{"id":3,"tx_bytes":7}],"t_ms":5,"event":"progress","unit":"qp"}`)); !ok ||
		p.Unit != "qp" || p.Streams[0].ID != 3 || p.Streams[0].TXBytes != 7 {
		t.Errorf("keys in another order: %+v %v", p, ok)
	}
	p, ok := Parse(line("server", 2000, []int64{10, 20}, []int64{0, 0}))
	if !ok || p.Role != "server" || p.TMillis != 2000 || len(p.Streams) != 2 || p.Streams[1].RXBytes != 20 {
		t.Fatalf("%+v %v", p, ok)
	}
}

// NOW is the bytes since the previous line over the time since it; PEAK the highest NOW.
func TestNowAndPeakFromCumulativeCounters(t *testing.T) {
	v := New("tcp-sweep cell 5")
	gb := int64(1e9 / 8) // bytes in one gigabit
	// second 1: pair 0 10 Gb/s, pair 1 20 Gb/s; second 2: 30 and 10; second 3 (line lost), 4: 20 and 20 over 2 s
	steps := []struct {
		t    int64
		rx   []int64
		want [2]float64
	}{
		{1000, []int64{0, 0}, [2]float64{0, 0}},
		{2000, []int64{10 * gb, 20 * gb}, [2]float64{10, 20}},
		{3000, []int64{40 * gb, 30 * gb}, [2]float64{30, 10}},
		{5000, []int64{80 * gb, 70 * gb}, [2]float64{20, 20}},
	}
	for _, s := range steps {
		p, ok := Parse(line("server", s.t, s.rx, []int64{0, 0}))
		if !ok {
			t.Fatal("parse")
		}
		v.Add(p)
		for id, want := range s.want {
			if got := v.streams[id].rx.Now; math.Abs(got-want) > 1e-9 {
				t.Errorf("t=%d pair %d NOW %.3f, want %.3f", s.t, id, got, want)
			}
		}
	}
	_, rxNow, _, rxPeak := v.Totals()
	if rxNow != 40 || rxPeak != 40 || v.streams[0].rx.Peak != 30 || v.streams[1].rx.Peak != 20 {
		t.Errorf("totals now %v peak %v; pair peaks %v %v", rxNow, rxPeak, v.streams[0].rx.Peak, v.streams[1].rx.Peak)
	}
	// the client's lines fill the TX side
	v.Add(mustParse(t, line("client", 4000, []int64{0, 0}, []int64{0, 0})))
	v.Add(mustParse(t, line("client", 5000, []int64{0, 0}, []int64{25 * gb, 25 * gb})))
	var out bytes.Buffer
	v.Render(&out, 100)
	text := out.String()
	for _, want := range []string{"tcp-sweep cell 5", "NOW    TX    50.00 Gb/s   RX    40.00 Gb/s   Full-duplex    90.00 Gb/s",
		"PEAK   TX    50.00 Gb/s   RX    40.00 Gb/s", "pair 0", "pair 1", "drops 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("render lacks %q:\n%s", want, text)
		}
	}
	// bars scale to the highest peak (pair 0 RX 30 Gb/s): 25 Gb/s TX fills 25/30 of a bar
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "pair 0") {
			full, empty := strings.Count(l, "█"), strings.Count(l, "░")
			if got := float64(full) / float64(full+empty); math.Abs(got-25.0/30) > 0.03 {
				t.Errorf("pair 0 TX bar %d/%d full, want about %.2f: %s", full, full+empty, 25.0/30, l)
			}
		}
	}
}

func mustParse(t *testing.T, l []byte) Progress {
	t.Helper()
	p, ok := Parse(l)
	if !ok {
		t.Fatalf("cannot parse %s", l)
	}
	return p
}

// A kind that prints no progress says so instead of waiting for a line that never comes.
func TestAKindWithoutLiveFiguresSaysSo(t *testing.T) {
	v := New("nccl cell 0")
	var out strings.Builder
	v.Render(&out, 80)
	if !strings.Contains(out.String(), "waiting for the data plane's first progress line") {
		t.Errorf("a fresh view waits for progress:\n%s", out.String())
	}
	v.NoLiveFigures("NCCL prints no live figures: its results arrive when the cell ends")
	out.Reset()
	v.Render(&out, 80)
	if !strings.Contains(out.String(), "NCCL prints no live figures") || strings.Contains(out.String(), "waiting for") {
		t.Errorf("want the kind's line instead of waiting:\n%s", out.String())
	}
}

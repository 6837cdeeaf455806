package liveview

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// rate is a NOW and PEAK throughput derived from a cumulative byte counter.
type rate struct {
	bytes, tMillis int64
	seen           bool
	Now, Peak      float64 // Gb/s
}

// add takes the counter's next reading; the first reading only sets the origin.
func (r *rate) add(bytes, tMillis int64) {
	if r.seen && tMillis > r.tMillis && bytes >= r.bytes {
		r.Now = float64(bytes-r.bytes) * 8 / float64(tMillis-r.tMillis) / 1e6
		r.Peak = max(r.Peak, r.Now)
	}
	r.bytes, r.tMillis, r.seen = bytes, tMillis, true
}

type stream struct {
	tx, rx rate
	drops  int64
}

// View accumulates progress lines of one attempt (its server and client) and draws them.
type View struct {
	// Title is the first line, e.g. the bench and cell.
	Title     string
	unit      string
	unitFixed string
	streams   map[int]*stream
	// totals per role and direction: the sum over streams of what each role reports.
	tx, rx         rate
	phyTX, phyRX   rate
	phyDev         string
	phyMissed      int64
	lastT          int64
	txSeen, rxSeen bool
	// waiting is the line shown before the first progress line arrives.
	waiting string
}

// New starts an empty view.
func New(title string) *View {
	return &View{Title: title, streams: map[int]*stream{}, waiting: "waiting for the data plane's first progress line ..."}
}

// NoLiveFigures says, in place of the bars, that this kind prints no progress while it measures.
func (v *View) NoLiveFigures(why string) { v.waiting = why }

// NameStreams names the streams (pair, queue, qp) whatever the lines say: the data plane calls
// every stream a queue, the bench's transport knows better.
func (v *View) NameStreams(unit string) { v.unitFixed = unit }

// Add takes one progress line. A server's line moves the RX bars, a client's the TX bars; a
// process reporting both (raw) moves both.
func (v *View) Add(p Progress) {
	if p.Unit != "" {
		v.unit = p.Unit
	}
	v.lastT = max(v.lastT, p.TMillis)
	var txSum, rxSum int64
	hasTX, hasRX := p.Role != "server", p.Role != "client"
	for _, s := range p.Streams {
		st := v.streams[s.ID]
		if st == nil {
			st = &stream{}
			v.streams[s.ID] = st
		}
		if hasTX {
			st.tx.add(s.TXBytes, p.TMillis)
			txSum += s.TXBytes
		}
		if hasRX {
			st.rx.add(s.RXBytes, p.TMillis)
			rxSum += s.RXBytes
			st.drops = s.Drops
		}
	}
	if hasTX {
		v.tx.add(txSum, p.TMillis)
		v.txSeen = true
	}
	if hasRX {
		v.rx.add(rxSum, p.TMillis)
		v.rxSeen = true
	}
	if p.PHY != nil && p.Role != "client" { // one NIC's view is enough: the receiver's
		v.phyDev, v.phyMissed = p.PHY.Device, p.PHY.RXMissed
		v.phyTX.add(p.PHY.TXBytes, p.TMillis)
		v.phyRX.add(p.PHY.RXBytes, p.TMillis)
	}
}

// Totals returns the NOW and PEAK sums in Gb/s (for tests and the final line).
func (v *View) Totals() (txNow, rxNow, txPeak, rxPeak float64) {
	return v.tx.Now, v.rx.Now, v.tx.Peak, v.rx.Peak
}

// Render draws the view width columns wide: a TX and an RX bar per stream scaled to the
// highest peak seen, then NOW and PEAK rows.
func (v *View) Render(w io.Writer, width int) {
	width = max(width, 60)
	rule := strings.Repeat("═", width-2)
	line := func(s string) {
		r := []rune(s)
		if len(r) > width-4 {
			r = r[:width-4]
		}
		fmt.Fprintf(w, "║ %s%s ║\n", string(r), strings.Repeat(" ", width-4-len(r)))
	}
	fmt.Fprintf(w, "╔%s╗\n", rule)
	line(v.Title)
	line(fmt.Sprintf("t = %.0f s", float64(v.lastT)/1000))
	fmt.Fprintf(w, "╠%s╣\n", rule)
	scale := 0.0
	for _, s := range v.streams {
		scale = max(scale, s.tx.Peak, s.rx.Peak)
	}
	ids := make([]int, 0, len(v.streams))
	for id := range v.streams {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	unit := v.unit
	if v.unitFixed != "" {
		unit = v.unitFixed
	}
	if unit == "" {
		unit = "stream"
	}
	barWidth := width - 4 - 12 - 4 - 14 - 12 // name, "TX ", rate, room for drops
	for _, id := range ids {
		s := v.streams[id]
		name := fmt.Sprintf("%s %d", unit, id)
		if v.txSeen {
			line(fmt.Sprintf("%-12sTX %s %8.2f Gb/s", name, bar(s.tx.Now, scale, barWidth), s.tx.Now))
			name = ""
		}
		if v.rxSeen {
			drops := ""
			if s.drops > 0 {
				drops = fmt.Sprintf(" drops %d", s.drops)
			}
			line(fmt.Sprintf("%-12sRX %s %8.2f Gb/s%s", name, bar(s.rx.Now, scale, barWidth), s.rx.Now, drops))
		}
	}
	if len(ids) == 0 {
		line(v.waiting)
	}
	fmt.Fprintf(w, "╠%s╣\n", rule)
	// A side nobody reported (the client prints no progress yet) shows "-", not a zero rate.
	gb := func(seen bool, x float64) string {
		if !seen {
			return fmt.Sprintf("%8s     ", "-")
		}
		return fmt.Sprintf("%8.2f Gb/s", x)
	}
	both := v.txSeen && v.rxSeen
	line(fmt.Sprintf("NOW    TX %s   RX %s   Full-duplex %s", gb(v.txSeen, v.tx.Now), gb(v.rxSeen, v.rx.Now), gb(both, v.tx.Now+v.rx.Now)))
	line(fmt.Sprintf("PEAK   TX %s   RX %s   Full-duplex %s", gb(v.txSeen, v.tx.Peak), gb(v.rxSeen, v.rx.Peak), gb(both, v.tx.Peak+v.rx.Peak)))
	if v.phyDev != "" {
		line(fmt.Sprintf("PHY %s  TX %.2f Gb/s  RX %.2f Gb/s (peak %.2f)  rx_missed %d", v.phyDev, v.phyTX.Now, v.phyRX.Now, v.phyRX.Peak, v.phyMissed))
	}
	fmt.Fprintf(w, "╚%s╝\n", rule)
}

// bar is width cells, filled in proportion to v/scale.
func bar(v, scale float64, width int) string {
	width = max(width, 10)
	n := 0
	if scale > 0 {
		n = min(width, int(v/scale*float64(width)+0.5))
	}
	return strings.Repeat("█", n) + strings.Repeat("░", width-n)
}

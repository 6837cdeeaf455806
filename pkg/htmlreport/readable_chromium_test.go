package htmlreport

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/testing/fixture"
)

// overflowProbe, appended to a copy of the page, writes what sticks out of a 1280-pixel window,
// and the cells' drops that wrap onto a second line, into the DOM that --dump-dom returns.
const overflowProbe = `<script>
window.addEventListener('load', () => {
  const w = document.documentElement.clientWidth;
  const over = [...document.querySelectorAll('td, th, p, h1, h2, h3, div, table')]
    .filter(e => !e.closest('details:not([open])') && e.getBoundingClientRect().right > w + 1)
    .map(e => e.tagName + ': ' + e.textContent.slice(0, 60));
  const wrapped = [...document.querySelectorAll('#cells td.drops')].filter(td => {
    const r = document.createRange();
    r.selectNodeContents(td);
    return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size > 1;
  }).map(td => td.textContent);
  const pre = document.createElement('pre');
  pre.id = 'overflow-probe';
  pre.textContent = JSON.stringify({scrollWidth: document.documentElement.scrollWidth, width: w, over: over, wrapped: wrapped});
  document.body.appendChild(pre);
});
</script>`

// A failed bench (a long JSON termination message as a cell's reason) and a raw bench read
// without scrolling sideways, with the failure's reason as a sentence and each cell's drops
// ("60 tcp_retrans") on one line.
func TestFailedAndRawReportsAreReadable(t *testing.T) {
	failed := fixture.TCPSweep("tcp-sweep", 1, true)
	long := `{"event":"result","v":1,"state":"Invalid","reason":"the wire was not crossed: rx_bytes_phy of eth0 moved 0 B while the application received 7340032000 B; the traffic looped inside the host","counters":{"tx_bytes_phy":0,"rx_bytes_phy":0,"tx_bytes":7340032000,"rx_bytes":7340032000,"interfaces":["eth0","eth1","eth2","eth3"]}}`
	failed.Status.CellResults[0].State = sbv1.CellInvalid
	failed.Status.CellResults[0].Message = long
	for _, tc := range []struct {
		bench  *sbv1.SpiralBench
		reason string
	}{
		{failed, "the wire was not crossed: rx_bytes_phy of eth0 moved 0 B"},
		{fixture.RawQueueScaling("raw-queue-scaling"), ""},
	} {
		t.Run(tc.bench.Name, func(t *testing.T) {
			page := writeReport(t, tc.bench)
			data, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			data = bytes.Replace(data, []byte("</body>"), []byte(overflowProbe+"</body>"), 1)
			if err := os.WriteFile(page, data, 0o644); err != nil {
				t.Fatal(err)
			}
			doc, err := html.Parse(bytes.NewReader(chromium(t, "--window-size=1280,2600", "--dump-dom", "file://"+page)))
			if err != nil {
				t.Fatal(err)
			}
			var probe struct {
				ScrollWidth, Width int
				Over, Wrapped      []string
			}
			if err := json.Unmarshal([]byte(text(byID(t, doc, "overflow-probe"))), &probe); err != nil {
				t.Fatal(err)
			}
			if probe.ScrollWidth > probe.Width || len(probe.Over) > 0 {
				t.Errorf("the page is %d px wide in a %d px window; sticking out: %q", probe.ScrollWidth, probe.Width, probe.Over)
			}
			if len(probe.Wrapped) > 0 {
				t.Errorf("drops wrap onto a second line: %q", probe.Wrapped)
			}
			if tc.reason == "" {
				return
			}
			reasons := findAll(byID(t, doc, "cells"), func(n *html.Node) bool { return hasClass(n, "reason") })
			var shown []string
			for _, r := range reasons {
				shown = append(shown, text(r))
			}
			if !strings.Contains(strings.Join(shown, "|"), tc.reason) || strings.Contains(strings.Join(shown, "|"), `"counters"`) {
				t.Errorf("reasons shown %q, want the sentence %q and no raw JSON", shown, tc.reason)
			}
		})
	}
}

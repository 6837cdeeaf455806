package benchkind

import (
	"fmt"
	"strings"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// hostAggregateTables is the HTML report's table of every GPU with the host at once: a row per
// cell and direction, from the cell's last valid repeat that measured it.
func hostAggregateTables(sb *sbv1.SpiralBench) []Table {
	t := Table{ID: "host-aggregate", Title: "All GPUs with the host at once", Columns: []string{"cell", "direction", "size",
		"each GPU alone, GB/s", "all at once, GB/s each", "sum alone", "aggregate"}}
	for _, c := range sb.Status.CellResults {
		var last *sbv1.CopyResult
		for _, r := range c.RepeatResults {
			if r.State == sbv1.CellValid && r.Copies != nil && len(r.Copies.HostAggregate) > 0 {
				last = r.Copies
			}
		}
		if last == nil {
			continue
		}
		for _, h := range last.HostAggregate {
			var alone, together []string
			var sum int64
			for i, mbps := range h.AloneMBps {
				device := deviceAt(last, i)
				alone = append(alone, fmt.Sprintf("GPU %d: %s", device, Gigabytes(mbps)))
				if i < len(h.TogetherMBps) {
					together = append(together, fmt.Sprintf("GPU %d: %s", device, Gigabytes(h.TogetherMBps[i])))
				}
				sum += mbps
			}
			t.Rows = append(t.Rows, []TableCell{{Value: itoa64(int64(c.Index))}, {Value: string(h.Direction), Text: true},
				{Value: Size64(h.Bytes)}, {Value: strings.Join(alone, "; "), Text: true},
				{Value: strings.Join(together, "; "), Text: true}, {Value: Gigabytes(sum)}, {Value: Gigabytes(h.AggregateMBps)}})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return []Table{t}
}

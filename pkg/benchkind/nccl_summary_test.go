package benchkind

import (
	"testing"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
)

// NCCL defines no in-place send/recv or all-to-all: their unchecked in-place rows say so; an
// unchecked row of an operation that has an in-place form is just not checked.
func TestInPlaceRowsWithoutAnNCCLDefinitionAreNotDefined(t *testing.T) {
	for _, tc := range []struct {
		op   string
		want [2]sbv1.NCCLCheck // out of place, in place
	}{
		{"sendrecv", [2]sbv1.NCCLCheck{sbv1.NCCLCheckPassed, sbv1.NCCLCheckNotDefined}},
		{"alltoall", [2]sbv1.NCCLCheck{sbv1.NCCLCheckPassed, sbv1.NCCLCheckNotDefined}},
		{"all_gather", [2]sbv1.NCCLCheck{sbv1.NCCLCheckPassed, sbv1.NCCLCheckNotChecked}},
	} {
		n := ncclSummary{Op: tc.op, Ranks: 2, Rows: [][6]int64{{1024, 0, 9000, 113, 113, 0}, {1024, 1, 9100, 112, 112, -1}}}
		c := n.collective()
		if c.Sizes[0].Check != tc.want[0] || c.Sizes[1].Check != tc.want[1] {
			t.Errorf("%s: checks %s, %s; want %v", tc.op, c.Sizes[0].Check, c.Sizes[1].Check, tc.want)
		}
	}
}

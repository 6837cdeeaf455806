package benchctrl

import (
	"strings"
	"testing"
)

func TestNodesText(t *testing.T) {
	long := strings.Repeat("n", 200)
	for _, c := range []struct {
		nodes []string
		want  string
	}{
		{nil, ""},
		{[]string{"node-a"}, "node-a"},
		{[]string{"node-a", "node-b"}, "node-a,node-b"},
		{[]string{"node-a", "node-a"}, "node-a"}, // a loopback bench's two ranks on one node
		{[]string{"node-a", long, "x" + long}, "node-a," + long + ",+1 more"},
		{[]string{long + long}, "+1 more"},
	} {
		got := nodesText(c.nodes)
		if got != c.want || len(got) > nodesTextMax {
			t.Errorf("nodesText(%d names) = %q, want %q", len(c.nodes), got, c.want)
		}
	}
}

package benchctrl

import (
	"fmt"
	"slices"
	"strings"
)

// nodesTextMax is status.nodesText's MaxLength.
const nodesTextMax = 256

// nodesText is status.nodes as the NODES column shows it: each node once, in order, joined by
// commas. The apiserver's table printer shows a list as JSON, or only its first item; a string
// reads as written. Names that do not fit are counted, not cut: "node-a,+3 more".
func nodesText(nodes []string) string {
	var seen []string
	for _, n := range nodes {
		if !slices.Contains(seen, n) {
			seen = append(seen, n)
		}
	}
	for kept := len(seen); kept >= 0; kept-- {
		s := strings.Join(seen[:kept], ",")
		if kept < len(seen) {
			s = strings.TrimPrefix(s+fmt.Sprintf(",+%d more", len(seen)-kept), ",")
		}
		if len(s) <= nodesTextMax {
			return s
		}
	}
	return ""
}

package acceptance

import (
	"fmt"
	"math/big"
	"strings"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/environment"
)

// CompareBaseline checks each measured cell against the baseline's cell of the same
// parameters: its RX throughput may fall at most maxRegressionPercent below. With
// requireSameEnvironment, differing GPU driver, NIC firmware, kernel or image break the
// comparison instead. It returns what held and what broke.
func CompareBaseline(spec sbv1.BaselineSpec, cells []sbv1.CellResult, env *sbv1.Environment, base *sbv1.SpiralBench) (held, broken []string) {
	name := "baseline " + spec.SpiralBenchName
	if base.Status.Phase != sbv1.PhaseCompleted {
		return nil, []string{fmt.Sprintf("%s has not completed (phase %q)", name, base.Status.Phase)}
	}
	if spec.RequireSameEnvironment {
		if diff := envDiff(env, base.Status.Environment, environment.KeysOr(spec.EnvironmentKeys, environment.BaselineKeys)); diff != "" {
			return nil, []string{fmt.Sprintf("%s ran on a different environment: %s", name, diff)}
		}
	}
	limit := int64(ptr.Deref(spec.MaxRegressionPercent, 5))
	byParams := map[sbv1.CellParameters]sbv1.CellResult{}
	for _, c := range base.Status.CellResults {
		byParams[c.Parameters] = c
	}
	compared := 0
	for _, c := range cells {
		b, ok := byParams[c.Parameters]
		if !ok || b.RXMbps == nil || b.State != sbv1.CellValid {
			continue
		}
		compared++
		if c.RXMbps == nil || c.State == sbv1.CellFailed {
			broken = append(broken, fmt.Sprintf("%s: cell %d has no result to compare (%s)", name, c.Index, c.State))
			continue
		}
		if !withinRegression(c.RXMbps.Mean, b.RXMbps.Mean, limit) {
			broken = append(broken, fmt.Sprintf("%s: cell %d RxMbps %d is more than %d%% below the baseline's %d",
				name, c.Index, c.RXMbps.Mean, limit, b.RXMbps.Mean))
		}
	}
	if compared == 0 {
		return nil, []string{name + ": no cell shares its parameters with a valid baseline cell"}
	}
	if len(broken) == 0 {
		held = []string{fmt.Sprintf("%s: %d cells within %d%% of the baseline's RxMbps", name, compared, limit)}
	}
	return held, broken
}

// withinRegression says now*100 >= base*(100-limit), exactly: the figures come from what pods
// reported, and int64 products of large ones would wrap (found by FuzzCompareBaseline).
func withinRegression(now, base, limit int64) bool {
	lhs := new(big.Int).Mul(big.NewInt(now), big.NewInt(100))
	return lhs.Cmp(new(big.Int).Mul(big.NewInt(base), big.NewInt(100-limit))) >= 0
}

func envDiff(a, b *sbv1.Environment, keys []sbv1.EnvironmentKey) string {
	if a == nil || b == nil {
		return "environment not recorded"
	}
	var d []string
	for _, x := range environment.Diff(a, b, keys) {
		d = append(d, x.String())
	}
	return strings.Join(d, ", ")
}

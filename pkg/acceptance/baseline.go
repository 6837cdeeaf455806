package acceptance

import (
	"fmt"
	"math/big"
	"strings"

	"k8s.io/utils/ptr"

	sbv1 "github.com/spiralbench/spiralbench/api/v1alpha1"
	"github.com/spiralbench/spiralbench/pkg/environment"
	"github.com/spiralbench/spiralbench/pkg/figure"
)

// CompareBaseline reads the baseline bench's figures and compares the cells with them, in
// one step (ReadBaseline, then CompareFigures). It returns what held and what broke.
func CompareBaseline(spec sbv1.BaselineSpec, cells []sbv1.CellResult, env *sbv1.Environment, base *sbv1.SpiralBench) (held, broken []string) {
	return CompareFigures(spec, cells, ReadBaseline(spec, cells, env, base))
}

// ReadBaseline takes from the baseline bench what a comparison needs: for each cell, the RX
// mean of the baseline's Valid cell of the same parameters. It names a problem instead when
// the baseline cannot vouch: it has not completed, shares no cell, or (requireSameEnvironment)
// ran on a different GPU driver, NIC firmware, kernel or image. The figures are kept (status,
// the bucket), so the verdict can be judged again without the baseline bench.
func ReadBaseline(spec sbv1.BaselineSpec, cells []sbv1.CellResult, env *sbv1.Environment, base *sbv1.SpiralBench) sbv1.BaselineFigures {
	f := sbv1.BaselineFigures{SpiralBenchName: spec.SpiralBenchName}
	name := "baseline " + spec.SpiralBenchName
	if base.Status.Phase != sbv1.PhaseCompleted {
		f.Problem = fmt.Sprintf("%s has not completed (phase %q)", name, base.Status.Phase)
		return f
	}
	if spec.RequireSameEnvironment {
		if diff := envDiff(env, base.Status.Environment, environment.KeysOr(spec.EnvironmentKeys, environment.BaselineKeys)); diff != "" {
			f.Problem = fmt.Sprintf("%s ran on a different environment: %s", name, diff)
			return f
		}
	}
	byParams := map[sbv1.CellParameters]sbv1.CellResult{}
	for _, c := range base.Status.CellResults {
		byParams[c.Parameters] = c
	}
	for _, c := range cells {
		b, ok := byParams[c.Parameters]
		if !ok || b.State != sbv1.CellValid {
			continue
		}
		if rx, ok := figure.Rx.Mean(&b); ok {
			f.Cells = append(f.Cells, sbv1.BaselineCell{Index: c.Index, RXMbps: rx})
		}
	}
	if len(f.Cells) == 0 {
		f.Problem = name + ": no cell shares its parameters with a valid baseline cell"
	}
	return f
}

// CompareFigures checks each of cells that the figures cover: its RX throughput may fall at
// most maxRegressionPercent below the baseline's. A cell the figures cover but cells lack is
// not compared (allowFailedCells judges the Valid cells only). It returns what held and broke.
func CompareFigures(spec sbv1.BaselineSpec, cells []sbv1.CellResult, f sbv1.BaselineFigures) (held, broken []string) {
	name := "baseline " + f.SpiralBenchName
	if f.Problem != "" {
		return nil, []string{f.Problem}
	}
	limit := int64(ptr.Deref(spec.MaxRegressionPercent, 5))
	byIndex := map[int32]sbv1.CellResult{}
	for _, c := range cells {
		byIndex[c.Index] = c
	}
	compared := 0
	for _, b := range f.Cells {
		c, ok := byIndex[b.Index]
		if !ok {
			continue
		}
		compared++
		rx, ok := figure.Rx.Mean(&c)
		if !ok || c.State == sbv1.CellFailed {
			broken = append(broken, fmt.Sprintf("%s: cell %d has no result to compare (%s)", name, c.Index, c.State))
			continue
		}
		if !withinRegression(rx, b.RXMbps, limit) {
			broken = append(broken, fmt.Sprintf("%s: cell %d %s %d is more than %d%% below the baseline's %d",
				name, c.Index, figure.Rx.Name, rx, limit, b.RXMbps))
		}
	}
	if compared == 0 {
		return nil, []string{name + ": no cell shares its parameters with a valid baseline cell"}
	}
	if len(broken) == 0 {
		held = []string{fmt.Sprintf("%s: %d cells within %d%% of the baseline's %s", name, compared, limit, figure.Rx.Name)}
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

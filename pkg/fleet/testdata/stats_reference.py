# Reference numbers for equivalence_test.go and trend_test.go, computed with scipy
# independently of the Go code. Run:
#   python3 -m venv /tmp/statsref && /tmp/statsref/bin/pip install scipy numpy
#   /tmp/statsref/bin/python pkg/fleet/testdata/stats_reference.py
# (produced with scipy 1.17.1, numpy from the same install)
import numpy as np
from scipy import stats

EQUIVALENCE = {  # name: (before, after, marginPercent, higherIsBetter, alpha)
    "close": ([100.2, 99.8, 100.5, 99.6, 100.1, 100.3, 99.9, 100.0],
              [99.7, 100.4, 99.5, 100.1, 99.9], 3, True, 0.05),
    "latency_worse": ([10.1, 9.9, 10.0, 10.2, 9.8, 10.0],
                      [10.9, 11.1, 10.8, 11.0], 5, False, 0.05),
    "undecided": ([100.8, 99.1, 100.3, 98.7, 101.2, 99.6, 100.4, 99.9, 100.9, 99.2, 100.1, 99.8],
                  [98.9, 101.6, 99.4], 2, True, 0.05),
}
for name, (b, a, m, hib, alpha) in EQUIVALENCE.items():
    b, a = np.array(b, float), np.array(a, float)
    if not hib:  # orient so that a higher value is better
        b, a = -b, -a
    mb = b.mean()
    d = m / 100 * abs(mb)  # margin in the figure's unit
    plain = stats.ttest_ind(a, b, equal_var=False)
    p_lower = stats.ttest_ind(a + d, b, equal_var=False, alternative="greater").pvalue
    p_upper = stats.ttest_ind(a - d, b, equal_var=False, alternative="less").pvalue
    ci = plain.confidence_interval(confidence_level=1 - 2 * alpha)
    # MoreNeeded: normal-approximation TOST size at power 0.8, before count fixed.
    se_needed = (d - abs(a.mean() - mb)) / (stats.norm.ppf(1 - alpha) + stats.norm.ppf(0.9))
    n_after = np.ceil(a.var(ddof=1) / (se_needed**2 - b.var(ddof=1) / len(b)))
    out = dict(t=plain.statistic, df=plain.df, p_lower=p_lower, p_upper=p_upper,
               ci_low=ci.low * 100 / abs(mb), ci_high=ci.high * 100 / abs(mb),
               more_needed=n_after - len(a) if name == "undecided" else 0)
    print(name, {k: float(v) for k, v in out.items()})

TREND = {  # name: (values, confidence)
    "declining": ([100, 99.5, 99.8, 98.9, 98.7, 98.0, 97.9, 97.1], 0.95),
    "ties": ([5, 5, 6, 5, 7, 7, 8, 6, 9, 9], 0.95),
    "short90": ([3.0, 3.4, 3.1, 3.9, 4.2], 0.90),
}
for name, (y, conf) in TREND.items():
    r = stats.theilslopes(y, alpha=conf, method="joint")
    out = dict(slope=r.slope, intercept=r.intercept, low=r.low_slope, high=r.high_slope)
    print(name, {k: float(v) for k, v in out.items()})

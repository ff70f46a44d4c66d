"""Errors, medians and geometric means, as the benchmarks print them.

Errors are in percent, signed: (measured / reference - 1) * 100. Spread is summarised with
medians (a replay's times have outliers) and errors of many ops or models with geometric means
of |error| (one op 10x off must not hide a hundred within 5%)."""
import math
import statistics


def error_pct(measured, reference):
    return (measured / reference - 1) * 100


def geomean_pct(log_errors):
    """The geometric mean of exp|e| over log errors e (log(measured / reference)), as a
    percentage: how far off a typical one is, either way."""
    if not log_errors:
        return float("nan")
    return (math.exp(sum(abs(e) for e in log_errors) / len(log_errors)) - 1) * 100


def geomean_abs(values, floor=0.01):
    """The geometric mean of |v| over values, each taken as at least `floor` (one near 0 would
    pull the mean to 0)."""
    return math.exp(statistics.mean(math.log(max(abs(v), floor)) for v in values))


def geomean_of_known(values):
    """geomean_abs over the figures that are known (a NaN: no replay gave one)."""
    known = [v for v in values if v == v]
    return geomean_abs(known) if known else float("nan")


def median_or_nan(values):
    """The median of the values that are not None, NaN when none is."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def abs_error_summary(errors_pct, limit_pct):
    """(how many are within limit_pct, mean |error|, max |error|) of signed errors in percent."""
    errs = [abs(e) for e in errors_pct]
    return sum(e <= limit_pct for e in errs), sum(errs) / len(errs), max(errs)

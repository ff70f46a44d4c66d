"""`mimic replay` of a recording (or an ET): its JSON report, or a figure its text report prints."""
import re

from benchlib.commands import run, run_json


def replay_report(mimic, rec, mode, iters, extra_args=(), env=None):
    """One replay's JSON report as the accuracy benches take it: mode is GAPS:FAULTS (--host-gaps
    and --page-faults), two warm-up iterations, then `iters` timed ones."""
    gaps, faults = mode.split(":")
    return run_json([mimic, "replay", rec, "--host-gaps", gaps, "--page-faults", faults, "--warmup", "2",
                     "--iters", str(iters), "--json", "-", *extra_args], env)


def printed_ms(text, figure):
    """The milliseconds a text report prints after `figure`: "replay median" for the median
    iteration, "op time" for its op time (src/replay/replay_report_format.cpp)."""
    return float(re.search(figure + r" ([0-9.]+) ms", text).group(1))


def replay_ms(mimic, target, flags, figure, env=None):
    """Replays `target` with `flags` and returns printed_ms of its report."""
    return printed_ms(run([mimic, "replay", target, *flags], env), figure)

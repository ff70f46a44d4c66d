#!/usr/bin/python3
"""Records one training step the way a user without mimic would: PyTorch's own execution-trace
observer and torch.profiler, nothing of mimic's recorder. For bench/replay_foreign.py.

  /usr/bin/python3 bench/foreign_record.py MODEL OUT_DIR [THREADS=1] [--profiler-step]

MODEL: a function of bench/heldout_models.py, bench/big_models.py or tests/python/batch_models.py
(mlp, recsys). Environment: WARMUP_STEPS (default 5) and UNTRACED_STEPS (default 25) set the
steps before the truth's timing and its count on each side of the recording (1 and 2 for
gpt2_large, whose step takes tens of seconds).
Writes OUT_DIR/et.json (the observer's file, as it wrote it), OUT_DIR/profile.json (the
profiler's Chrome trace, as export_chrome_trace wrote it) and OUT_DIR/truth.json: the step's
untraced time (median of 2 x 25 steps after 5 warm-up steps, timed around each step with
perf_counter) that the replay is judged against, and the median minor page faults of those
steps; mimic never reads truth.json.
--profiler-step records under a schedule with prof.step() (a ProfilerStep#N around the step);
without it, one plain profile() block around the step.
"""
import json
import os
import resource
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "python"))


def step_of(model):
    import heldout_models
    if hasattr(heldout_models, model):
        return getattr(heldout_models, model)()
    import big_models
    if hasattr(big_models, model):
        return getattr(big_models, model)()
    import batch_models
    return getattr(batch_models, model)()


def observer():
    cls = getattr(torch.profiler, "ExecutionTraceObserver", None) or torch.profiler.ExecutionGraphObserver
    return cls()


def untraced_ms(step, count, faults=None, before=None):
    """Each step's wall ms; with `faults`, also appends each step's minor page faults; `before`,
    when given, runs ahead of each step, untimed (a barrier that starts ranks together)."""
    times = []
    for _ in range(count):
        if before is not None:
            before()
        f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1e3)
        if faults is not None:
            faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0)
    return times


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    with_step = "--profiler-step" in sys.argv
    model, out = args[0], args[1]
    threads = int(args[2]) if len(args) > 2 else 1
    torch.set_num_threads(threads)
    os.makedirs(out, exist_ok=True)
    step = step_of(model)
    warmup_steps = int(os.environ.get("WARMUP_STEPS", "5"))
    untraced_steps = int(os.environ.get("UNTRACED_STEPS", "25"))
    untraced_ms(step, warmup_steps)
    faults = []
    before = untraced_ms(step, untraced_steps, faults)

    et_path, profile_path = os.path.join(out, "et.json"), os.path.join(out, "profile.json")
    et = observer()
    et.register_callback(et_path)
    activities = [torch.profiler.ProfilerActivity.CPU]
    if with_step:
        schedule = torch.profiler.schedule(wait=0, warmup=1, active=1, repeat=1)
        with torch.profiler.profile(activities=activities, schedule=schedule, record_shapes=True) as prof:
            step()
            prof.step()
            et.start()
            step()
            et.stop()
            prof.step()
    else:
        with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
            et.start()
            step()
            et.stop()
    et.unregister_callback()
    prof.export_chrome_trace(profile_path)
    after = untraced_ms(step, untraced_steps, faults)
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump({"model": model, "threads": threads, "profiler_step": with_step,
                   "untraced_median_ms": statistics.median(before + after),
                   "untraced_before_ms": statistics.median(before), "untraced_after_ms": statistics.median(after),
                   "untraced_page_faults_median": statistics.median(faults),
                   "torch": torch.__version__}, f, indent=1)


if __name__ == "__main__":
    main()

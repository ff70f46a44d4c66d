"""mimic_record: record a PyTorch training step for mimic.

    from mimic_record import record_step
    meta = record_step(step_fn, "out/mystep", warmup=3, iters=10)

writes out/mystep/et.json.gz (execution trace), profile.json (Kineto-format profile of the same
iteration) and meta.json (machine, torch, ranks and process groups, untraced iteration times).
In a distributed job, call track_process_groups() before creating groups with new_group so
meta.json lists them in creation order.

torch is imported on first use, so `import mimic_record` is cheap.
"""

__version__ = "0.1.0"
__all__ = ["record_step", "track_process_groups"]


def record_step(step_fn, out_dir, warmup=3, iters=10, **kwargs):
    from .recorder import record_step as _record_step
    return _record_step(step_fn, out_dir, warmup=warmup, iters=iters, **kwargs)


def track_process_groups():
    from .dist_groups import install
    install()

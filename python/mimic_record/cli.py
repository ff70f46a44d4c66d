"""python3 -m mimic_record: record a built-in workload or a user's step function.

  python3 -m mimic_record --workload mlp --out DIR [--warmup 3] [--iters 10] [--force]
  python3 -m mimic_record --script train.py:make_step --out DIR
  python3 -m mimic_record --workload ddp_mlp --nproc 2 --out DIR      (DIR/rank0, DIR/rank1)

Under torchrun (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set) each process records its own
rank into DIR/rank<RANK>. Exit codes: 0 done, 1 recording failed, 2 bad usage, 3 no torch.
"""

import argparse
import datetime
import importlib.util
import json
import os
import sys

from . import outdir

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_TORCH = 3


class NoTorch(Exception):
    pass


def _require_torch():
    try:
        import torch  # noqa: F401
        import torch.profiler  # noqa: F401
    except ImportError as e:
        raise NoTorch(f"PyTorch is not importable by {sys.executable} ({e}); install Debian's "
                      "python3-torch or point MIMIC_PYTHON at an interpreter that has torch") from e


def _parser():
    p = argparse.ArgumentParser(prog="python3 -m mimic_record",
                                description="Record one training iteration: ET, profile and timing.")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--workload", help="built-in workload: mlp, transformer, dlrm, cnn, ddp_mlp, dlrm_dist")
    src.add_argument("--script", help="FILE.py:FUNCTION; FUNCTION() returns the step callable, "
                                      "or is itself the step (then its first call counts as warmup)")
    src.add_argument("--list", action="store_true", help="list the built-in workloads")
    p.add_argument("--out", help="output directory")
    p.add_argument("--force", action="store_true", help="overwrite a previous recording in --out")
    p.add_argument("--warmup", type=int, default=3, help="untimed iterations first (default 3)")
    p.add_argument("--iters", type=int, default=10, help="timed untraced iterations (default 10)")
    p.add_argument("--profiled-iters", type=int, default=5,
                   help="iterations under the profiler, the first the ET's; a replay compares each op with "
                        "its median over them (default 5 per session, 1 to 50)")
    p.add_argument("--profiled-sessions", type=int, default=3,
                   help="profiler sessions of --profiled-iters iterations each, pooled in profile.json: "
                        "one session's per-op medians move with its state (default 3, 1 to 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of built-in workloads (default 0)")
    p.add_argument("--threads", type=int, default=0, help="torch intra-op threads (default: torch's)")
    p.add_argument("--label", help="record_function label of the traced iteration "
                                   "(default ProfilerStep#<warmup+iters>)")
    p.add_argument("--nproc", type=int, default=0, help="ranks to launch on this machine (Gloo)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds before a distributed recording is stopped (default 600)")
    # Set by the launcher for each rank it starts.
    p.add_argument("--pace", metavar="PREFIX",
                   help="after recording, stay and time more untraced iterations in blocks when a "
                        "benchmark driver says so, over the FIFOs PREFIX.go.rankN / PREFIX.done.rankN "
                        "(bench/replay_paired.py; paced.py)")
    p.add_argument("--rank", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--world-size", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--master-port", type=int, default=None, help=argparse.SUPPRESS)
    return p


def _check_source(args):
    """Rejects a workload or script that cannot run as asked, without importing torch."""
    from . import workloads
    distributed = args.nproc >= 1 or args.rank is not None or _launcher_env_rank() is not None
    if args.workload:
        if workloads.is_distributed(args.workload) and not distributed:
            raise ValueError(f"workload '{args.workload}' is distributed: use --nproc N")
        if not workloads.is_distributed(args.workload) and distributed:
            raise ValueError(f"workload '{args.workload}' runs on one process: drop --nproc")
    if args.script:
        path = args.script.rpartition(":")[0]
        if not path or not args.script.rpartition(":")[2]:
            raise ValueError(f"--script wants FILE.py:FUNCTION, got '{args.script}'")
        if not os.path.isfile(path):
            raise ValueError(f"--script: {path}: no such file")


def _load_script_step(spec, warmup):
    """(step callable, warmup left) for FILE.py:FUNCTION."""
    path, sep, func_name = spec.rpartition(":")
    if not sep or not path or not func_name:
        raise ValueError(f"--script wants FILE.py:FUNCTION, got '{spec}'")
    if not os.path.isfile(path):
        raise ValueError(f"--script: {path}: no such file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    module_spec = importlib.util.spec_from_file_location(
        os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    func = getattr(module, func_name, None)
    if not callable(func):
        raise ValueError(f"--script: {path} has no function '{func_name}'")
    result = func()
    if callable(result):
        return result, warmup
    return func, max(warmup - 1, 0)  # func was the step; that call was a warmup iteration


def _launcher_env_rank():
    """(rank, world size) from torchrun-style variables, or None."""
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ and "MASTER_ADDR" in os.environ:
        return int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    return None


def _init_distributed(rank, world_size, port, timeout_s):
    import torch.distributed as dist
    from . import dist_groups
    dist_groups.install()
    if port is not None:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world_size,
                            timeout=datetime.timedelta(seconds=timeout_s))


def _record_here(args, out_dir, rank=None, world_size=None):
    """Records in this process (a single process, or one rank of a distributed job)."""
    import torch
    from . import workloads
    from .recorder import record_step

    if args.threads > 0:
        torch.set_num_threads(args.threads)
    distributed = rank is not None
    if distributed:
        _init_distributed(rank, world_size, args.master_port, args.timeout)
    warmup = args.warmup
    if args.script:
        step, warmup = _load_script_step(args.script, warmup)
        name = f"script:{args.script}"
        extra = {}
    else:
        module = workloads.load(args.workload)
        step = module.build(seed=args.seed)
        name = args.workload
        extra = {"workload_description": module.DESCRIPTION, "seed": args.seed}
    try:
        record_step(step, out_dir, warmup=warmup, iters=args.iters, workload=name,
                    label=args.label, extra_meta=extra, profiled_iters=args.profiled_iters,
                    profiled_sessions=args.profiled_sessions)
        if args.pace:  # the recording is complete: this process, as it is now, is the original
            from .paced import serve_paced
            serve_paced(step, args.pace, rank or 0, warmup=0, out_dir=out_dir)
    finally:
        if distributed:
            import torch.distributed as dist
            dist.destroy_process_group()


def _rank_args(args, out_dir):
    """The per-rank command line, built from this one's options."""
    def build(rank):
        a = ["--out", os.path.join(out_dir, f"rank{rank}"), "--warmup", str(args.warmup),
             "--iters", str(args.iters), "--profiled-iters", str(args.profiled_iters),
             "--profiled-sessions", str(args.profiled_sessions),
             "--seed", str(args.seed), "--threads", str(args.threads),
             "--timeout", str(args.timeout)]
        a += ["--workload", args.workload] if args.workload else ["--script", args.script]
        if args.label:
            a += ["--label", args.label]
        if args.pace:
            a += ["--pace", args.pace]
        return a
    return build


def _write_job(out_dir, args, world_size, port):
    """DIR/job.json: what was launched and each rank's ground truth, for tools reading the set."""
    ranks = []
    for rank in range(world_size):
        with open(os.path.join(out_dir, f"rank{rank}", "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
        ranks.append({"rank": rank, "dir": f"rank{rank}",
                      "untraced_median_ms": meta.get("untraced_median_ms"),
                      "traced_iteration_ms": meta.get("traced_iteration_ms")})
    job = {"meta_schema_version": 1, "workload": args.workload or f"script:{args.script}",
           "world_size": world_size, "backend": "gloo", "master_addr": "127.0.0.1",
           "master_port": port, "ranks": ranks}
    with open(os.path.join(out_dir, "job.json"), "w", encoding="utf-8") as f:
        json.dump(job, f, indent=1)
        f.write("\n")


def _list_workloads():
    from . import workloads
    try:
        _require_torch()  # the descriptions live in modules that import torch
    except NoTorch as e:
        print(f"mimic_record: error: {e}", file=sys.stderr)
        return EXIT_NO_TORCH
    for name in workloads.NAMES:
        kind = "distributed" if workloads.is_distributed(name) else "single process"
        print(f"{name:12s} {kind:15s} {workloads.load(name).DESCRIPTION}")
    return 0


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.list:
        return _list_workloads()
    if not args.out:
        print("mimic_record: error: --out DIR is required", file=sys.stderr)
        return EXIT_USAGE
    if (args.warmup < 0 or args.iters < 1 or args.nproc < 0 or not 1 <= args.profiled_iters <= 50
            or not 1 <= args.profiled_sessions <= 10):
        print("mimic_record: error: need --warmup >= 0, --iters >= 1, --profiled-iters 1 to 50, "
              "--profiled-sessions 1 to 10, --nproc >= 0",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        _check_source(args)  # before touching --out, so a typo leaves no empty directory
        _require_torch()
        if args.rank is not None:  # one rank started by our own launcher; it prepared --out
            _record_here(args, args.out, args.rank, args.world_size)
            return 0
        env_rank = _launcher_env_rank() if args.nproc == 0 else None
        if env_rank is not None:  # torchrun, mpirun wrappers, Slurm scripts exporting RANK...
            rank, world_size = env_rank
            rank_dir = os.path.join(args.out, f"rank{rank}")
            outdir.prepare(rank_dir, args.force)  # each rank only touches its own directory
            _record_here(args, rank_dir, rank, world_size)
            return 0
        outdir.prepare(args.out, args.force)
        if args.nproc >= 1:
            from . import launcher
            port = launcher.launch(args.nproc, _rank_args(args, args.out), args.timeout)
            _write_job(args.out, args, args.nproc, port)
            print(f"mimic_record: recorded {args.nproc} ranks into {args.out}")
        else:
            _record_here(args, args.out)
        return 0
    except NoTorch as e:
        print(f"mimic_record: error: {e}", file=sys.stderr)
        return EXIT_NO_TORCH
    except (ValueError, outdir.OutDirError) as e:
        print(f"mimic_record: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # the recorder's boundary: one line for the user, details follow
        print(f"mimic_record: error: {type(e).__name__}: {e}", file=sys.stderr)
        if os.environ.get("MIMIC_RECORD_DEBUG"):
            raise
        return EXIT_FAILED

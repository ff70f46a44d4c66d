"""Running a command from a benchmark: its output back, or the bench stops naming the command
and the end of what it said (a benchmark has no use for half its figures)."""
import json
import os
import subprocess
import sys

TAIL_CHARS = 3000  # enough for a mimic error and the lines before it


def threads_env(threads=1, **extra):
    """os.environ with OpenBLAS and OpenMP held to `threads` (plus `extra`): Debian's libtorch
    does not hand its thread count to OpenBLAS, which would otherwise run on every core, so both
    are set for the recording and the replays alike."""
    return dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), **extra)


def _fail(argv, returncode, output):
    # A crash prints nothing: the signal is then all there is to go on.
    how = f"signal {-returncode}" if returncode < 0 else f"exit code {returncode}"
    sys.exit(f"failed ({how}): {' '.join(argv)}\n{output[-TAIL_CHARS:]}")


def run(argv, env=None):
    """argv's stdout and stderr together, in the order written: a report is read for the figures
    it prints wherever they go, and a failure's message sits among them."""
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode != 0:
        _fail(argv, r.returncode, r.stdout)
    return r.stdout


def run_json(argv, env=None):
    """The JSON document argv writes to stdout (`--json -`); stderr is kept apart, as progress
    lines and warnings there are not JSON."""
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        _fail(argv, r.returncode, r.stderr)
    return json.loads(r.stdout)

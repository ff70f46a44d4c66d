"""--nproc N: one recorder process per rank on this machine, Gloo over loopback.

Each rank is a fresh `python -m mimic_record ... --rank R` process (a subprocess rather than
torch.multiprocessing, so a rank that crashes in C++ cannot take the launcher with it). The
launcher prefixes their output with the rank, and if one rank fails it gives the others a grace
period, then terminates them, so nobody waits on a collective that will never complete.
"""

import os
import socket
import subprocess
import sys
import threading
import time

_GRACE_S = 10.0          # how long survivors may take to notice a failed peer
_TERM_WAIT_S = 5.0       # SIGTERM -> SIGKILL
_PORT_ATTEMPTS = 3


class LaunchError(Exception):
    pass


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago (rank 0 binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pump(rank, stream, lines):
    """Copies a rank's output to ours, prefixed; keeps it for diagnosis."""
    for line in stream:
        lines.append(line)
        sys.stdout.write(f"[rank {rank}] {line}")
        sys.stdout.flush()
    stream.close()


def _terminate(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + _TERM_WAIT_S
    for p in procs:
        while p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if p.poll() is None:
            p.kill()
            p.wait()


def _run_once(nproc, rank_args, port, timeout_s):
    """Runs all ranks once; returns (exit codes, output lines per rank, first rank to fail or None)."""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(nproc),
               PYTHONUNBUFFERED="1")
    procs, pumps, outputs = [], [], []
    try:
        for rank in range(nproc):
            cmd = [sys.executable, "-m", "mimic_record", *rank_args(rank),
                   "--rank", str(rank), "--world-size", str(nproc), "--master-port", str(port)]
            p = subprocess.Popen(cmd, env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank)),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 errors="replace")
            lines = []
            t = threading.Thread(target=_pump, args=(rank, p.stdout, lines), daemon=True)
            t.start()
            procs.append(p)
            pumps.append(t)
            outputs.append(lines)

        deadline = time.monotonic() + timeout_s
        first_failure_at = None
        first_failed = None
        while any(p.poll() is None for p in procs):
            now = time.monotonic()
            failed = [r for r, p in enumerate(procs) if p.poll() not in (None, 0)]
            if failed and first_failure_at is None:
                first_failure_at = now
                first_failed = _likely_cause(failed, outputs)
                print(f"mimic_record: rank {first_failed} exited with code {procs[first_failed].returncode}; "
                      f"stopping the other ranks within {_GRACE_S:.0f} s", flush=True)
            if first_failure_at is not None and now - first_failure_at > _GRACE_S:
                break
            if now > deadline:
                hung = [r for r, p in enumerate(procs) if p.poll() is None]
                _terminate(procs)
                raise LaunchError(f"timed out after {timeout_s:.0f} s; ranks still running: "
                                  f"{', '.join(map(str, hung))}")
            time.sleep(0.05)
    finally:
        _terminate(procs)  # no orphans, whatever happened above (including Ctrl-C)
        for t in pumps:
            t.join(timeout=2.0)
    if first_failed is None:
        first_failed = next((r for r, p in enumerate(procs) if p.returncode != 0), None)
    return [p.returncode for p in procs], outputs, first_failed


# What a rank says when a PEER died under it (Gloo's TCP transport, c10d's store).
_PEER_LOST = ("Connection closed by peer", "Connection reset by peer", "Broken pipe",
              "Timed out waiting", "Socket Timeout")


def _likely_cause(failed, outputs):
    """Of ranks seen failing in the same poll, the one not merely reporting a lost peer."""
    for rank in failed:
        tail = "".join(outputs[rank][-20:])
        if not any(marker in tail for marker in _PEER_LOST):
            return rank
    return failed[0]


def _port_was_busy(outputs):
    text = "".join(outputs[0][-50:]) if outputs else ""
    return "Address already in use" in text or "EADDRINUSE" in text


def _describe(code):
    return f"killed by signal {-code}" if code < 0 else f"exit code {code}"


def launch(nproc, rank_args, timeout_s):
    """Runs `nproc` ranks; rank_args(rank) gives each rank's recorder arguments. Raises LaunchError."""
    # MIMIC_RECORD_PORT fixes the first port tried (a site's firewall rules; the busy-port test).
    wanted = os.environ.get("MIMIC_RECORD_PORT")
    for attempt in range(_PORT_ATTEMPTS):
        port = int(wanted) if wanted and attempt == 0 else free_port()
        print(f"mimic_record: launching {nproc} ranks, Gloo on 127.0.0.1:{port}", flush=True)
        codes, outputs, first_failed = _run_once(nproc, rank_args, port, timeout_s)
        if all(c == 0 for c in codes):
            return port
        if _port_was_busy(outputs) and attempt + 1 < _PORT_ATTEMPTS:
            print(f"mimic_record: port {port} was taken; retrying on another", flush=True)
            continue
        others = [f"rank {r} ({_describe(c)})" for r, c in enumerate(codes) if c != 0 and r != first_failed]
        message = f"distributed recording failed: rank {first_failed} failed first ({_describe(codes[first_failed])})"
        if others:
            message += "; then " + ", ".join(others)
        raise LaunchError(message)
    raise LaunchError("no free port found")  # unreachable: the loop returns or raises

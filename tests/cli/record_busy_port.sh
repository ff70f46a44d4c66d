#!/bin/bash
# mimic record --nproc: when the rendezvous port is taken, the launcher retries on another port.
set -euo pipefail
mimic="$1"
python="${MIMIC_PYTHON:-/usr/bin/python3}"
"$python" -c "import torch" 2>/dev/null || { echo "skip: $python cannot import torch"; exit 77; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Hold a listening socket on a port and make it the launcher's first choice.
"$python" - "$mimic" "$tmp/out" <<'PY'
import os, socket, subprocess, sys
holder = socket.socket()
holder.bind(("127.0.0.1", 0))
holder.listen(1)
port = holder.getsockname()[1]
env = dict(os.environ, MIMIC_RECORD_PORT=str(port))
done = subprocess.run([sys.argv[1], "record", "--workload", "ddp_mlp", "--nproc", "2", "--out", sys.argv[2],
                       "--warmup", "1", "--iters", "2"], env=env, capture_output=True, text=True)
print(done.stdout[-3000:], done.stderr[-2000:])
assert done.returncode == 0, f"exit {done.returncode}"
assert f"port {port} was taken; retrying" in done.stdout, "no retry message"
assert f"127.0.0.1:{port}" not in done.stdout.split("retrying")[1], "retried on the same port"
print("busy port handled")
PY
"$python" "$(dirname "$0")/../python/check_recording.py" "$tmp/out" --workload ddp_mlp --nproc 2

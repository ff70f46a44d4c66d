#!/bin/bash
# Unit tests of the Python recorder (tests/python/test_*.py), run by Debian's interpreter.
set -euo pipefail
python="${MIMIC_PYTHON:-/usr/bin/python3}"
[ -x "$python" ] || { echo "skip: no $python"; exit 77; }
root="$(cd "$(dirname "$0")/../.." && pwd)"
PYTHONPATH="$root/python" "$python" -m unittest discover -s "$root/tests/python" -p 'test_*.py' -v

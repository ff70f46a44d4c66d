#!/bin/bash
# mimic record --workload dlrm_dist --nproc 3: sharded tables, uneven all_to_all splits (8 tables / 3 ranks)
set -euo pipefail
bash "$(dirname "$0")/../python/record_and_check.sh" "$1" dlrm_dist 3

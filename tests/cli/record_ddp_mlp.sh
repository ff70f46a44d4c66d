#!/bin/bash
# mimic record --workload ddp_mlp --nproc 2: per-rank recordings of DDP over Gloo on loopback
exec bash "$(dirname "$0")/../python/record_and_check.sh" "$1" ddp_mlp 2

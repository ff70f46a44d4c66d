#!/bin/bash
# mimic record --workload mlp: ET, profile and meta.json, checked by tests/python/check_recording.py
exec bash "$(dirname "$0")/../python/record_and_check.sh" "$1" mlp

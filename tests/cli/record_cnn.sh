#!/bin/bash
# mimic record --workload cnn: ET, profile and meta.json, checked by tests/python/check_recording.py
exec bash "$(dirname "$0")/../python/record_and_check.sh" "$1" cnn

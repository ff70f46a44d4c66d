"""The output directory: refuse to mix a new recording with an old one unless asked to."""

import os
import re

# Everything a recording writes; --force removes these and nothing else. The page-fault probe's
# files must go too: a new recording made without the probe would otherwise sit beside an old
# one's op_faults.json and op_gaps.json, and the replay would read them as its own.
OUTPUT_FILES = ("et.json.gz", "profile.json", "meta.json", "job.json", ".et.json.partial",
                "op_faults.json", "op_gaps.json", "op_layouts.json")
# Scratch files the recorder and the probe write while they run (".op_gaps.0.tsv.partial").
_SCRATCH = re.compile(r"\.[\w.]+\.partial$")
_RANK_DIR = re.compile(r"rank\d+$")


class OutDirError(Exception):
    pass


def _remove_outputs(path):
    for entry in os.listdir(path):
        full = os.path.join(path, entry)
        if entry in OUTPUT_FILES or entry.endswith(".tmp") or _SCRATCH.match(entry):
            os.remove(full)
        elif _RANK_DIR.match(entry) and os.path.isdir(full) and not os.path.islink(full):
            _remove_outputs(full)
            if not os.listdir(full):
                os.rmdir(full)


def prepare(path, force):
    """Creates `path`, or empties a previous recording there when force; else refuses a non-empty one."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutDirError(f"{path}: exists and is not a directory")
    if os.path.isdir(path) and os.listdir(path):
        if not force:
            raise OutDirError(f"{path}: directory exists and is not empty (use --force to overwrite)")
        _remove_outputs(path)
        if os.listdir(path):
            leftover = ", ".join(sorted(os.listdir(path))[:5])
            # Files we did not write stay; say so rather than delete a user's data.
            print(f"mimic_record: warning: {path}: keeping files not written by mimic_record: {leftover}")
    os.makedirs(path, exist_ok=True)


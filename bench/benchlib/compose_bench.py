"""The command line the composition benches (cut_replay, scale_replay, obfuscate_replay) share:
BUILD_DIR --models A,B,... --<count> N [more counts] --json OUT."""
import argparse
import json
import os


def parse_args(models, count, count_default, extra=()):
    """The parsed arguments; `args.mimic` is BUILD_DIR's mimic, `args.<count>` the bench's own
    count (regions to cut, repeats of each replay); `extra`: more (name, default) counts."""
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--models", default=models)
    ap.add_argument("--" + count, type=int, default=count_default)
    for name, default in extra:
        ap.add_argument("--" + name, type=int, default=default)
    ap.add_argument("--json")
    args = ap.parse_args()
    args.mimic = os.path.join(args.build, "mimic")
    return args


def write_json(path, data):
    """Writes the bench's results to --json's file, when it was given."""
    if path:
        with open(path, "w") as f:
            json.dump(data, f, indent=1)

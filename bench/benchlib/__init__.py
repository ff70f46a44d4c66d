"""What the benchmark scripts in bench/ share, so that each piece has one home and no script
imports another (replay_ab.py and replay_accuracy.py once imported each other for it).

A script run as `python3 bench/NAME.py` has bench/ on its path, so `from benchlib import ...`
needs no set-up. The modules, one job each:
- commands:      running mimic from a bench (its output back, or the bench stops saying why),
                 and the environment that holds OpenBLAS and OpenMP to a thread count
- models:        what a bench records (built-in workloads, heldout_models.py's steps, a test
                 script's step) and `mimic record` of it
- replays:       `mimic replay` of a recording: its JSON report, or a figure its text prints
- stats:         errors, medians and geometric means, as the benches print them
- per_op:        per op name errors out of replay reports (replay_ab, replay_accuracy,
                 replay_ab_fresh.sh)
- compose_bench: the command line the composition benches (cut, scale, obfuscate) share
Standard library only: the benches run on /usr/bin/python3 without PyPI.
"""

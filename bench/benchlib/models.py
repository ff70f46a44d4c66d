"""What a benchmark records, by name, and `mimic record` of it.

A name is a built-in workload (`mimic record --workload`), one of heldout_models.py's training
steps, or SCRIPT.py:FUNCTION (any step; test_step() names those of tests/python/)."""
import os

from benchlib.commands import run

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(BENCH_DIR)
# The built-in workloads the accuracy benches record by default (python/mimic_record/workloads).
BUILTIN = ["mlp", "transformer", "dlrm", "cnn"]
# The functions of heldout_models.py: steps unlike the built-in workloads. Listed here, not
# there, so that a bench can name them without importing torch.
HELDOUT = ["resnet18", "mobilenet", "gpt", "lstm_lm", "gru_seq", "unet", "vit", "tcn", "dcgan", "gnn", "seq2seq", "mixer"]
# heldout_models.py's steps that use a feature of PyTorch: sparse embedding gradients, autocast,
# packed sequences, Python numbers in the loss, dynamically quantized layers, complex weights,
# a channels-last model.
FEATURES = ["dlrm_sparse", "autocast_mlp", "bilstm_packed", "vae", "quantized_lstm", "spectral_adam", "channels_last_seg"]


def test_step(file, function):
    """SCRIPT.py:FUNCTION of a step in tests/python/."""
    return f"{os.path.join(REPO_DIR, 'tests', 'python', file)}:{function}"


def source_args(name):
    """The `mimic record` arguments that say what to record."""
    if ".py:" in name:
        return ["--script", name]
    if name in HELDOUT or name in FEATURES:
        return ["--script", f"{os.path.join(BENCH_DIR, 'heldout_models.py')}:{name}"]
    return ["--workload", name]


def record(mimic, name, out, flags=(), env=None):
    """Records `name` into the directory `out`; `flags` go after --out (--force, --threads N)."""
    run([mimic, "record", *source_args(name), "--out", out, *flags], env)

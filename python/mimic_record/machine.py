"""What the machine and the torch build were when the trace was recorded (for meta.json)."""

import os
import platform
import socket
import sys

import torch


def cpu_model():
    """The CPU's model name from /proc/cpuinfo ('' if not Linux or not readable)."""
    try:
        with open("/proc/cpuinfo", "r", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor()


def describe():
    """JSON-ready description of host, interpreter and torch."""
    try:
        affinity = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        affinity = os.cpu_count()
    return {
        "hostname": socket.gethostname(),
        "pid": os.getpid(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpu_affinity_count": affinity,
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "torch_version": torch.__version__,
        "torch_cuda_available": torch.cuda.is_available(),
        "kineto_available": bool(torch.autograd.kineto_available()),
        "intra_op_threads": torch.get_num_threads(),
        "inter_op_threads": torch.get_num_interop_threads(),
    }

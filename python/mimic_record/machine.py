"""What the machine, the process and the torch build were when the trace was recorded (meta.json).

describe() is meta.json's `machine` object: CPU, cores, the BLAS library actually loaded in this
process (read from /proc/self/maps after torch ran a GEMM, never assumed from the build), torch's
version and threads, and the thread variables of the environment. `mimic replay` describes its own
process the same way (src/support/machine_info.cpp, whose blas_from_maps this module's mirrors) and
warns, naming each field, where the two differ. process() is the rest, at meta.json's top level.
"""

import ctypes
import os
import platform
import socket
import sys

import torch

# The thread variables recorded (null where unset), in this order. How OpenMP's idle threads wait
# matters as much as how many there are: on 2 cores with OpenBLAS's own threads beside them, the
# same step ran 6.4 ms with libgomp's default spinning and 8.7-11.1 ms with OMP_WAIT_POLICY=PASSIVE.
ENV_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
           "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")

# libtorch links libblas.so.3: the one mapped provides the GEMM, even with OpenBLAS mapped too (for
# liblapack.so.3, whose alternative can be OpenBLAS's while libblas's is the reference).
_PREFERENCE = ("libblas", "openblas", "blis", "mkl", "atlas", "flexiblas")


def _read(path):
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def cpu_model_from_cpuinfo(text):
    """The first model name of /proc/cpuinfo's text ('' when none)."""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model"):
            return value.strip()
    return ""


def physical_cores_from_cpuinfo(text):
    """Distinct (physical id, core id) pairs of /proc/cpuinfo's text; None when it names no core."""
    cores, package, core, any_core = set(), "0", None, False
    for line in text.splitlines() + [""]:
        if not line.strip():
            if core is not None:
                cores.add((package, core))
            package, core = "0", None
            continue
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "physical id":
            package = value.strip()
        elif key == "core id":
            core, any_core = value.strip(), True
    return len(cores) if any_core else None


def _library_of_file(path):
    name = os.path.basename(path).lower()
    if "openblas" in name:
        return "openblas"
    for prefix, lib in (("libblis", "blis"), ("libmkl", "mkl"), ("libatlas", "atlas"), ("libsatlas", "atlas"),
                        ("libtatlas", "atlas"), ("libflexiblas", "flexiblas"), ("libblas.so", "libblas"),
                        ("libblas64.so", "libblas")):
        if name.startswith(prefix):
            return lib
    return ""


def _library_of_libblas_dir(path):
    name = os.path.basename(os.path.dirname(path)).lower()
    for part, lib in (("openblas", "openblas"), ("blis", "blis"), ("atlas", "atlas"), ("mkl", "mkl")):
        if part in name:
            return lib
    return "reference" if name in ("blas", "blas64", "netlib") else "libblas"


def blas_from_maps(text):
    """(library, path) of the BLAS mapped, from /proc/self/maps' text; ('', None) when none is.

    A mapped libblas.so.3 (the file libtorch links, update-alternatives' choice on Debian) names
    the library by its directory (.../openblas-pthread/ is OpenBLAS, .../blas/ the reference BLAS);
    without one, a library's own file (libopenblas*, libblis*, libmkl_*, libatlas*, as in pip
    wheels) does. numpy's and scipy's bundled copies are left out: torch does not call them.
    """
    found = {}
    for line in text.splitlines():
        slash = line.find("/")
        if slash < 0:
            continue
        path = line[slash:].strip()
        if path.endswith(" (deleted)"):
            path = path[:-len(" (deleted)")]
        if any(s in path for s in ("numpy.libs/", "scipy.libs/", "/numpy/.libs/", "/scipy/.libs/")):
            continue
        lib = _library_of_file(path)
        if lib and (lib not in found or path < found[lib]):
            found[lib] = path
    for lib in _PREFERENCE:
        if lib in found:
            path = found[lib]
            return (_library_of_libblas_dir(path) if lib == "libblas" else lib), path
    return "", None


def blas_from_torch_config(config):
    """BLAS_INFO's value in torch.__config__.show() ('' when absent)."""
    at = config.find("BLAS_INFO=")
    if at < 0:
        return ""
    value = config[at + len("BLAS_INFO="):]
    for sep in (",", " ", "\n"):
        value = value.split(sep, 1)[0]
    return value.strip()


def _ask_library(library, path):
    """(config, threads) from the library itself, through the copy already mapped."""
    config, threads = None, None
    try:
        lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | os.RTLD_LAZY)
    except OSError:
        return config, threads
    try:
        if library == "openblas":
            lib.openblas_get_config.restype = ctypes.c_char_p
            config = lib.openblas_get_config().decode(errors="replace").strip()
            threads = int(lib.openblas_get_num_threads())
        elif library == "blis":
            lib.bli_info_get_version_str.restype = ctypes.c_char_p
            config = "BLIS " + lib.bli_info_get_version_str().decode(errors="replace")
            lib.bli_thread_get_num_threads.restype = ctypes.c_int64
            threads = int(lib.bli_thread_get_num_threads())
        elif library == "mkl":
            threads = int(lib.mkl_get_max_threads())
    except AttributeError:  # a symbol this build does not export
        pass
    return config, threads


def blas():
    """The BLAS this process runs torch's GEMMs on, read after torch has run one."""
    a = torch.ones(64, 64)
    torch.mm(a, a)  # a BLAS loaded on first use is mapped after this
    library, path = blas_from_maps(_read("/proc/self/maps"))
    if not library:
        # Linked statically into libtorch (pip wheels' MKL): only the build can say.
        return {"library": blas_from_torch_config(torch.__config__.show()) or None, "path": None,
                "config": None, "threads": None}
    path = os.path.realpath(path)
    config, threads = _ask_library(library, path)
    return {"library": library, "path": path, "config": config, "threads": threads}


def describe():
    """meta.json's `machine` object."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = None
    cpuinfo = _read("/proc/cpuinfo")
    return {
        "hostname": socket.gethostname(),
        "cpu_model": cpu_model_from_cpuinfo(cpuinfo) or platform.processor(),
        "logical_cores": os.cpu_count(),
        "physical_cores": physical_cores_from_cpuinfo(cpuinfo),
        "usable_cores": usable,
        "blas": blas(),
        "torch_version": torch.__version__,
        "intra_op_threads": torch.get_num_threads(),
        "inter_op_threads": torch.get_num_interop_threads(),
        "env": {k: os.environ.get(k) for k in ENV_VARS},
    }


def process():
    """The recording process and its interpreter (meta.json's top level)."""
    return {
        "pid": os.getpid(),
        "python_version": platform.python_version(),
        "python_executable": sys.executable,
        "torch_cuda_available": torch.cuda.is_available(),
        "kineto_available": bool(torch.autograd.kineto_available()),
    }

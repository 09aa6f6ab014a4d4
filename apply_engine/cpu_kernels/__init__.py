"""C kernels for the CPU target, built on first use with the system C compiler and loaded by ctypes.

`linear.c` multiplies by weights kept in a compressed block format (see apply_engine/compressed.py),
and `amx.c` does the same products for several rows on the AMX tiles of recent Intel Xeons;
`layer.c` runs whole decoder layers for a few new tokens over such weights (FastTarget on CPU), and
`argmax.c` finds the argmax of a vocabulary product without computing it (greedy verification). The
library is compiled once per source and machine into the user cache (`-march=native`, so a
cache shared between machines of different CPUs keys them apart). It links `libgomp.so.1` by name,
which resolves to the copy torch's CPU wheel has already loaded, so both share one OpenMP thread
pool. Without a compiler, or when the build fails or computes a wrong product, `library()` returns
None with the reason in `build_error`, and callers keep torch's dense kernels: slower, never wrong.
"""

import ctypes
import hashlib
import os
import platform
import shutil
import subprocess
import threading
from pathlib import Path

from apply_engine.models import cache_root

HERE = Path(__file__).parent
FLAGS = ("-O3", "-march=native", "-fopenmp", "-shared", "-fPIC")
SOURCES = ("kernels.h", "linear.c", "layer.c", "amx.c", "argmax.c")

# Rows of x from which products run on AMX tiles (amx.c) where the CPU has them. A tile holds 16
# tokens, and converting the weights to bf16 rows is a fixed cost, so fewer rows go through linear.c.
# Measured with the stand-in (2-core Xeon): a pass of 8 tokens costs ~19 ms both ways, one of 16
# costs 23 ms on tiles against 33.
AMX_ROWS = 12

# Calls of concurrent requests run one at a time: each already spreads over every core, and two
# OpenMP teams on the same cores wait on each other at every barrier.
ONE_AT_A_TIME = threading.Lock()

_library: ctypes.CDLL | None = None
_built: Path | None = None  # the loaded library's file
_amx = False  # products of AMX_ROWS or more rows run on AMX tiles
_tried = False
_building = threading.Lock()
build_error: str | None = None


def machine_key() -> str:
    """What -march=native compiles for: the CPU model and feature flags."""
    try:
        info = Path("/proc/cpuinfo").read_text()
        lines = [line for line in info.splitlines() if line.startswith(("model name", "flags"))][:2]
    except OSError:
        lines = []
    return "\n".join([platform.machine(), *lines])


def library_path(compiler: str) -> Path:
    digest = hashlib.sha256()
    sources = [(HERE / name).read_bytes() for name in SOURCES]
    for part in (*sources, compiler.encode(), " ".join(FLAGS).encode(), machine_key().encode()):
        digest.update(part)
    return cache_root() / "kernels" / f"fastapply-{digest.hexdigest()[:16]}.so"


def build(compiler: str, path: Path) -> None:
    """Compile to a temporary name, then rename: concurrent builders never load a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    try:
        subprocess.run(
            [compiler, *FLAGS, "-o", str(tmp), *(str(HERE / n) for n in SOURCES if n.endswith(".c"))],
            check=True,
            capture_output=True,
            timeout=120,
        )
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


FORMATS = {"q4_1": 0, "q8_0": 1, "bf16": 2}  # enum format in kernels.h


class Matrix(ctypes.Structure):
    """struct matrix (kernels.h): an [N, K] compressed weight."""

    _fields_ = [
        ("format", ctypes.c_int64),
        ("N", ctypes.c_int64),
        ("K", ctypes.c_int64),
        ("q", ctypes.c_void_p),
        ("d", ctypes.c_void_p),
        ("m", ctypes.c_void_p),
    ]


class Screen(ctypes.Structure):
    """struct screen (argmax.c): a q8_0 vocabulary matrix laid out for bounding its products."""

    _fields_ = [
        ("N", ctypes.c_int64),
        ("K", ctypes.c_int64),
        ("q", ctypes.c_void_p),
        ("d", ctypes.c_void_p),
        ("l1", ctypes.c_void_p),
        ("slack", ctypes.c_void_p),
    ]


class Layer(ctypes.Structure):
    """struct layer (layer.c): one decoder layer's weights and KV cache."""

    _fields_ = [
        ("input_norm", ctypes.c_void_p),
        ("post_norm", ctypes.c_void_p),
        ("qkv", Matrix),
        ("o", Matrix),
        ("gate_up", Matrix),
        ("down", Matrix),
        ("qkv_bias", ctypes.c_void_p),
        ("o_bias", ctypes.c_void_p),
        ("gate_up_bias", ctypes.c_void_p),
        ("down_bias", ctypes.c_void_p),
        ("k_cache", ctypes.c_void_p),
        ("v_cache", ctypes.c_void_p),
    ]


class Dims(ctypes.Structure):
    """struct dims (layer.c)."""

    _fields_ = [
        *(
            (name, ctypes.c_int64)
            for name in ("hidden", "heads", "kv_heads", "head_dim", "intermediate", "cache_len")
        ),
        ("eps", ctypes.c_float),
        ("scale", ctypes.c_float),
    ]


def declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    ptr, size = ctypes.c_void_p, ctypes.c_int64
    lib.matmul.argtypes = [ptr, size, ctypes.POINTER(Matrix), ptr, ptr]
    layers, dims = ctypes.POINTER(Layer), ctypes.POINTER(Dims)
    lib.decode_layers.argtypes = [ptr, size, ptr, layers, size, dims, ptr, ptr, ptr]
    lib.use_amx_from.argtypes = [size]
    lib.screened_argmax.argtypes = [ptr, size, ctypes.POINTER(Screen), ctypes.POINTER(Matrix), ptr, ptr]
    lib.screened_argmax.restype = ctypes.c_int
    lib.amx_available.restype = ctypes.c_int
    lib.screen_available.restype = ctypes.c_int
    for fn in (lib.matmul, lib.decode_layers, lib.use_amx_from):
        fn.restype = None
    return lib


def computes_products(lib: ctypes.CDLL) -> bool:
    """A product over a small bf16-exact weight agrees with torch's: the build is sound here."""
    import torch

    generator = torch.Generator().manual_seed(0)
    weight = torch.randn(40, 64, generator=generator).bfloat16().float()  # [out, in]
    x = torch.randn(3, 64, generator=generator)
    bits = (weight.view(torch.int32) >> 16).to(torch.int16).contiguous()
    y = torch.empty(3, 40)
    lib.matmul(
        x.data_ptr(), 3, Matrix(FORMATS["bf16"], 40, 64, bits.data_ptr(), None, None), None, y.data_ptr()
    )
    return torch.allclose(y, x @ weight.t(), rtol=1e-5, atol=1e-5)


def amx() -> bool:
    """Whether products of several rows run on AMX tiles here (cpu_kernels/amx.c): built for a CPU
    that has them, granted the tile state by the kernel, and not turned off by FASTAPPLY_NO_AMX
    (all decided when the library loads)."""
    return library() is not None and _amx


def screens() -> bool:
    """Whether argmax.c finds greedy choices here without computing logits (a CPU with AVX512-VNNI);
    FASTAPPLY_NO_SCREEN turns it off, to compare."""
    lib = library()
    return lib is not None and not os.environ.get("FASTAPPLY_NO_SCREEN") and bool(lib.screen_available())


def build_id() -> str:
    """Names the compiled kernels (sources, compiler, flags, CPU); empty when there are none."""
    return _built.stem if library() is not None and _built is not None else ""


def library() -> ctypes.CDLL | None:
    """The compiled kernels, built on the first call; None (see `build_error`) where they cannot be."""
    if _tried:
        return _library
    with _building:  # the first requests may arrive together: one builds, the others wait for it
        return _load()


def _load() -> ctypes.CDLL | None:
    global _library, _built, _amx, _tried, build_error
    if _tried:
        return _library
    _tried = True
    if os.environ.get("FASTAPPLY_NO_KERNELS"):
        build_error = "disabled by FASTAPPLY_NO_KERNELS"
        return None
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        build_error = "no C compiler (cc or gcc) on PATH"
        return None
    try:
        path = library_path(compiler)
        if not path.exists():
            build(compiler, path)
        lib = declare(ctypes.CDLL(str(path)))
        if not computes_products(lib):
            build_error = f"{path} computes wrong products on this machine"
            return None
        _library, _built = lib, path
        _amx = not os.environ.get("FASTAPPLY_NO_AMX") and bool(lib.amx_available())
        lib.use_amx_from(AMX_ROWS if _amx else 1 << 62)
    except subprocess.CalledProcessError as exc:
        build_error = f"{compiler} failed: {exc.stderr.decode(errors='replace')[-300:]}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        build_error = f"{type(exc).__name__}: {exc}"[:300]
    return _library

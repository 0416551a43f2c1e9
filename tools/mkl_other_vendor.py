"""Build the library that makes oneMKL run the other x86 vendor's kernels, and check that it does.

``make nbval-emulated`` preloads it (``LD_PRELOAD``) for one strict nbval run: on an AMD CPU oneMKL then
computes matrix products as on an Intel CPU, and on an Intel CPU as on any other. Outputs committed on one
vendor's machine that the other vendor's kernels change fail there, on the machine that commits them
(issue 18: chapter 2 printed a rounding-level value whose last digit differed on an Intel CPU).
tools/mkl_other_vendor.c says how it works.

Usage:
    python tools/mkl_other_vendor.py OUT.so           build OUT.so for this CPU; print what it emulates
    python tools/mkl_other_vendor.py OUT.so --check   build, then fail unless preloading OUT.so changes the
                                                      last bits of a float64 matrix product

Exit status: 0 built (and checked); 3 this machine cannot run the emulation (not x86-64 Linux, no C compiler,
or a PyTorch without oneMKL), with the reason on one line; 1 the check failed; 2 bad arguments.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).with_suffix(".c")
HOOK = "mkl_serv_intel_cpu_true"
UNSUPPORTED = 3
# a float64 batched product (the kind of chapter 2's scores), printed as a digest of its bits
PRODUCT = (
    "import hashlib, torch; g = torch.Generator().manual_seed(0); "
    "a = torch.randn(8, 33, 64, generator=g, dtype=torch.float64); "
    "b = torch.randn(8, 64, 35, generator=g, dtype=torch.float64); "
    "print(hashlib.sha256((a @ b).numpy().tobytes()).hexdigest())"
)


class Unsupported(Exception):
    """This machine cannot run the emulation; the message says why."""


def cpu_vendor() -> str:
    """The CPU's vendor string from /proc/cpuinfo (``GenuineIntel``, ``AuthenticAMD``, ...)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("vendor_id"):
                return line.split(":", 1)[1].strip()
    except OSError as error:
        raise Unsupported(f"cannot read /proc/cpuinfo ({error})") from error
    raise Unsupported("/proc/cpuinfo names no vendor_id")


def _libtorch_cpu() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise Unsupported("torch is not installed in this Python")
    path = Path(next(iter(spec.submodule_search_locations))) / "lib" / "libtorch_cpu.so"
    if not path.exists():
        raise Unsupported(f"{path} does not exist")
    return path


def emulated_vendor() -> str:
    """Which vendor's oneMKL kernels the library selects on this machine; raises Unsupported where none."""
    if sys.platform != "linux" or platform.machine().lower() not in {"x86_64", "amd64"}:
        raise Unsupported(f"oneMKL's vendor switch needs x86-64 Linux, this is {sys.platform} {platform.machine()}")
    library = ctypes.CDLL(str(_libtorch_cpu()))
    if not hasattr(library, HOOK):
        raise Unsupported(f"this PyTorch's libtorch_cpu.so has no {HOOK} (built without oneMKL?)")
    return "another vendor's (not Intel)" if cpu_vendor() == "GenuineIntel" else "Intel's"


def build(out: Path) -> str:
    """Compile the library into ``out``; return the sentence that says what it emulates."""
    emulated = emulated_vendor()
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        raise Unsupported("no C compiler (cc or gcc) to build the library with")
    answer = "0" if cpu_vendor() == "GenuineIntel" else "1"
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", f"-DINTEL_ANSWER={answer}", "-o", str(out), str(SOURCE)], check=True)
    return f"oneMKL with {emulated} kernels on this {cpu_vendor()} CPU: preload {out}"


def product_digest(preload: Path | None) -> str:
    """The digest of the float64 product above, computed in a fresh Python (with ``preload`` preloaded)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("LD_PRELOAD", None)
    env.pop("MKL_CBWR", None)
    if preload is not None:
        env["LD_PRELOAD"] = str(preload.resolve())
    return subprocess.run([sys.executable, "-c", PRODUCT], env=env, check=True, capture_output=True, text=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="where to write the shared library (a path ending in .so)")
    parser.add_argument("--check", action="store_true", help="fail unless the library changes oneMKL's results")
    args = parser.parse_args(argv)
    if args.out.suffix != ".so":
        parser.error(f"out must be a path ending in .so, got {str(args.out)!r}")
    try:
        print(build(args.out))
    except Unsupported as reason:
        print(f"cannot emulate the other vendor's oneMKL here: {reason}")
        return UNSUPPORTED
    if args.check:
        if product_digest(None) == product_digest(args.out):
            print(
                f"the check failed: preloading {args.out} left a float64 matrix product's bits unchanged, so oneMKL "
                f"no longer chooses its kernels through {HOOK}; the emulation would test nothing"
            )
            return 1
        print("checked: preloaded, it changes the last bits of a float64 matrix product")
    return 0


if __name__ == "__main__":
    sys.exit(main())

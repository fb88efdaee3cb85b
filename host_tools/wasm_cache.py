"""The MicroPython WebAssembly build of `matchbox web`: got by name from npm at first use.

The package carries no MicroPython build. The page's package.json and package-lock.json
(host_tools/webpage/) pin the npm package `@micropython/micropython-webassembly-pyscript` by
version, tarball address and sha512 integrity. `folder()` gives the folder holding its
files: in a checkout host_tools/webpage/node_modules when `npm ci` has filled it, else the
user's cache folder (`$XDG_CACHE_HOME/matchbox/wasm-VERSION/`, ~/Library/Caches on macOS,
%LOCALAPPDATA% on Windows), filled on first use:

- with `npm ci` from the shipped package.json and lockfile, when npm is on PATH;
- else straight from the registry: the lockfile's tarball, read with a bound on its size,
  checked against the lockfile's integrity before it is opened, then only the files below
  taken out of it (regular files named `package/NAME`; a member with an absolute path, a
  `..`, a link or a device refuses the whole tarball).

Either way the files are written in a temporary folder beside the cache's and renamed into
place, so the cache holds the whole build or nothing. `MATCHBOX_WASM_URL` names another
tarball address (a mirror, a file:// URL); it is checked against the same integrity.
Hand-written since npm is not always there and no PyPI package installs an npm package's
files by its lockfile.
"""
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request

from host_tools import resources
from host_tools.errors import MatchboxError
from host_tools.files import write_whole

LOCK = os.path.join(resources.WEBPAGE, "package-lock.json")
PACKAGE_JSON = os.path.join(resources.WEBPAGE, "package.json")
NAME = "/".join(resources.WASM_PACKAGE)
# What the cache keeps of the npm package: the build, and its package.json (name, version,
# licence).
FILES = resources.WASM_FILES + ("package.json",)
URL_VARIABLE = "MATCHBOX_WASM_URL"
MAX_TARBALL = 32 * 1024 * 1024    # the pinned one is about 1 MB
MAX_UNPACKED = 64 * 1024 * 1024   # every member together, as the tarball is read
TIMEOUT = 60                      # seconds without a byte from the registry, and for npm ci


class WasmError(MatchboxError):
    """The WebAssembly build cannot be got or kept; the message says why."""

    def __init__(self, why):
        MatchboxError.__init__(self, "the MicroPython WebAssembly build (npm %s)" % NAME, why)


def pinned(lock=None):
    """(version, tarball URL, integrity) of the package, as the lockfile pins it."""
    with open(lock or LOCK, encoding="utf-8") as f:
        entry = json.load(f)["packages"]["node_modules/" + NAME]
    return entry["version"], entry["resolved"], entry["integrity"]


def cache_root():
    """The user's cache folder of matchbox (as platformdirs' user_cache_dir names it)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "matchbox")


def complete(folder, names=resources.WASM_FILES):
    return folder is not None and all(os.path.isfile(os.path.join(folder, n)) for n in names)


def folder(checkout=resources.WASM, lock=None, root=None, npm="auto", say=print):
    """The folder holding the build's files: the checkout's node_modules when filled, else
    the cache's, which is filled first when it is not (say() tells the person so)."""
    if complete(checkout):
        return checkout
    version, url, integrity = pinned(lock)
    root = root or cache_root()
    dest = os.path.join(root, "wasm-" + version)
    if complete(dest, FILES):
        return dest
    url = os.environ.get(URL_VARIABLE) or url
    if npm == "auto":
        npm = None if os.environ.get(URL_VARIABLE) else shutil.which("npm")
    say("getting the MicroPython WebAssembly build (npm %s %s) into %s" % (NAME, version, dest),
        flush=True)
    try:
        os.makedirs(root, exist_ok=True)
        work = tempfile.mkdtemp(prefix=".wasm-", dir=root)
    except OSError as exc:
        raise _unwritable(root, exc) from None
    try:
        staged = os.path.join(work, "staged")
        os.mkdir(staged)
        if npm:
            files = npm_ci(npm, work, lock)
        else:
            files = unpack(download(url, integrity), FILES)
        for name in FILES:
            try:
                write_whole(os.path.join(staged, name), files[name])
            except MatchboxError as exc:
                raise WasmError("cannot write the cache folder %s: %s" % (root, exc.why)) from None
        if os.path.isdir(dest) and not complete(dest, FILES):
            shutil.rmtree(dest)   # a folder left half-filled by hand: filled again
        try:
            os.rename(staged, dest)
        except OSError:
            if not complete(dest, FILES):   # else another `matchbox web` filled it meanwhile
                raise
    except OSError as exc:
        raise _unwritable(root, exc) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def _unwritable(root, exc):
    return WasmError("cannot write the cache folder %s: %s" % (root, exc.strerror or exc))


def npm_ci(npm, work, lock=None):
    """`npm ci` of the shipped package.json and lockfile in work; {name: bytes} of FILES."""
    for src, name in ((PACKAGE_JSON, "package.json"), (lock or LOCK, "package-lock.json")):
        with open(src, "rb") as f:
            write_whole(os.path.join(work, name), f.read())
    try:
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                               "--loglevel=error"], cwd=work, capture_output=True, text=True,
                              timeout=TIMEOUT * 5)
    except subprocess.TimeoutExpired:
        raise WasmError("`npm ci` did not finish in %d s" % (TIMEOUT * 5)) from None
    except OSError as exc:
        raise WasmError("cannot run npm (%s): %s" % (npm, exc.strerror or exc)) from None
    if proc.returncode != 0:
        last = [line for line in (proc.stderr or proc.stdout).splitlines() if line.strip()]
        raise WasmError("`npm ci` failed (exit %d)%s" % (
            proc.returncode, ": " + " ".join(last[-1].split()) if last else ""))
    installed = os.path.join(work, "node_modules", *resources.WASM_PACKAGE)
    out = {}
    for name in FILES:
        try:
            with open(os.path.join(installed, name), "rb") as f:
                out[name] = f.read(MAX_TARBALL + 1)
        except FileNotFoundError:
            raise WasmError("`npm ci` installed no %s" % name) from None
        if len(out[name]) > MAX_TARBALL:
            raise WasmError("%s from `npm ci` is over %d MB" % (name, MAX_TARBALL >> 20))
    return out


def download(url, integrity):
    """The tarball at url, read within MAX_TARBALL bytes and checked against the lockfile's
    integrity ("sha512-" and the base64 digest) before anything else reads it."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512" or not expected:
        raise WasmError("the lockfile's integrity %r is not a sha512 one" % integrity)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
            data = r.read(MAX_TARBALL + 1)
    except urllib.error.HTTPError as exc:
        raise WasmError("cannot download %s: HTTP %d %s" % (url, exc.code, exc.reason)) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc   # URLError wraps the socket's OSError
        reason = getattr(reason, "strerror", None) or reason
        raise WasmError("cannot download %s: %s" % (url, reason)) from None
    if len(data) > MAX_TARBALL:
        raise WasmError("%s is over %d MB, not the pinned package" % (url, MAX_TARBALL >> 20))
    got = base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
    if got != expected:
        raise WasmError("%s does not match the lockfile's integrity (sha512 %s..., got %s...): "
                        "refused, nothing kept" % (url, expected[:16], got[:16]))
    return data


def unpack(data, names):
    """{name: bytes} of package/NAME for each of names, out of the tarball's bytes; a member
    that could land outside its folder, or is not a regular file or folder, refuses it all."""
    out = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            for member in tar:
                parts = member.name.replace("\\", "/").split("/")
                if member.name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
                    raise WasmError("the tarball has a member outside its folder (%r): refused"
                                    % member.name)
                if not (member.isfile() or member.isdir()):
                    raise WasmError("the tarball's %r is not a regular file: refused"
                                    % member.name)
                total += member.size
                if total > MAX_UNPACKED:
                    raise WasmError("the tarball unpacks to over %d MB: refused"
                                    % (MAX_UNPACKED >> 20))
                if member.isfile() and parts[0] == "package" and len(parts) == 2 \
                        and parts[1] in names:
                    f = tar.extractfile(member)
                    assert f is not None   # a regular file
                    out[parts[1]] = f.read(member.size)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise WasmError("the tarball cannot be read: %s" % exc) from None
    missing = [n for n in names if n not in out]
    if missing:
        raise WasmError("the tarball has no %s" % ", ".join("package/" + n for n in missing))
    return out

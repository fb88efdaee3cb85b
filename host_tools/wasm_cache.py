"""The npm parts of the pages, got by name from npm at first use: the MicroPython WebAssembly
build of `matchbox web`, and the browser build of the MQTT client the hall's page follows the
tables with (`Part`, HALL_MQTT).

The package carries neither. Each part's package.json and package-lock.json (the web page's in
host_tools/webpage/, the hall page's in host_tools/hall/npm/) pin its npm package by version,
tarball address and sha512 integrity. `folder()` gives the folder holding its files: in a
checkout the part's node_modules when `npm ci` has filled it, else the user's cache folder
(`$XDG_CACHE_HOME/matchbox/wasm-VERSION/` or `mqtt-VERSION/`, ~/Library/Caches on macOS,
%LOCALAPPDATA% on Windows), filled on first use:

- with `npm ci` from the shipped package.json and lockfile, when npm is on PATH;
- else straight from the registry: the lockfile's tarball, read with a bound on its size,
  checked against the lockfile's integrity before it is opened, then only the part's files
  taken out of it (regular files named `package/PATH`, kept under their last name; a member
  with an absolute path, a `..`, a link or a device refuses the whole tarball).

Either way the files are written in a temporary folder beside the cache's and renamed into
place, so the cache holds the whole build or nothing. `MATCHBOX_WASM_URL` (the hall's:
`MATCHBOX_MQTT_JS_URL`) names another tarball address (a mirror, a file:// URL); it is checked
against the same integrity.
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


class Part:
    """An npm package a page needs: its name, the files kept of it (paths in the package),
    the folder of its package.json and lockfile, its checkout's node_modules copy, the
    variable naming another tarball address, what it is called in messages, and the prefix of
    its cache folder."""

    def __init__(self, name, files, folder, url_variable, what, prefix):
        self.name, self.files, self.folder = name, tuple(files), folder
        self.url_variable, self.what, self.prefix = url_variable, what, prefix

    @property
    def lock(self):
        return os.path.join(self.folder, "package-lock.json")

    @property
    def names(self):
        """The names its files are kept under (the last part of each path)."""
        return tuple(f.rsplit("/", 1)[-1] for f in self.files)

    def checkout(self):
        """{kept name: path} of its files in a checkout's node_modules, when `npm ci` filled
        it (else None; always None in an installed package)."""
        if resources.INSTALLED:
            return None
        top = os.path.join(self.folder, "node_modules", *self.name.split("/"))
        paths = {n: os.path.join(top, *f.split("/")) for f, n in zip(self.files, self.names)}
        return paths if all(os.path.isfile(p) for p in paths.values()) else None

    def paths(self, **kwargs):
        """{kept name: path} of its files: the checkout's, else the cache's (filled first when
        it is not: folder())."""
        got = self.checkout()
        if got is None:
            dest = folder(None, part=self, **kwargs)
            got = {n: os.path.join(dest, n) for n in self.names}
        return got


HALL_MQTT = Part("mqtt", ("dist/mqtt.min.js", "package.json"),
                 os.path.join(resources.package_file("hall"), "npm"), "MATCHBOX_MQTT_JS_URL",
                 "the MQTT client of the hall's page", "mqtt-")


class WasmError(MatchboxError):
    """An npm part cannot be got or kept; the message says why."""

    def __init__(self, why, part=None):
        what = ("the MicroPython WebAssembly build (npm %s)" % NAME if part is None
                else "%s (npm %s)" % (part.what, part.name))
        MatchboxError.__init__(self, what, why)


def pinned(lock=None, name=NAME):
    """(version, tarball URL, integrity) of the package, as the lockfile pins it."""
    with open(lock or LOCK, encoding="utf-8") as f:
        entry = json.load(f)["packages"]["node_modules/" + name]
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


def folder(checkout=resources.WASM, lock=None, root=None, npm="auto", say=print, part=None):
    """The folder holding the part's files (the WebAssembly build unless `part`): the
    checkout's node_modules when filled, else the cache's, which is filled first when it is
    not (say() tells the person so)."""
    if part is not None:
        checkout, lock = None, lock or part.lock
        name, files, names = part.name, part.files, part.names
        variable, prefix, what = part.url_variable, part.prefix, part.what
    else:
        name, files, names = NAME, FILES, FILES
        variable, prefix, what = URL_VARIABLE, "wasm-", "the MicroPython WebAssembly build"
    if complete(checkout, [n for n in names if n != "package.json"]):
        return checkout
    version, url, integrity = pinned(lock, name)
    root = root or cache_root()
    dest = os.path.join(root, prefix + version)
    if complete(dest, names):
        return dest
    url = os.environ.get(variable) or url
    if npm == "auto":
        npm = None if os.environ.get(variable) else shutil.which("npm")
    say("getting %s (npm %s %s) into %s" % (what, name, version, dest), flush=True)
    try:
        os.makedirs(root, exist_ok=True)
        work = tempfile.mkdtemp(prefix="." + prefix, dir=root)
    except OSError as exc:
        raise _unwritable(root, exc, part) from None
    try:
        staged = os.path.join(work, "staged")
        os.mkdir(staged)
        if npm:
            got = npm_ci(npm, work, lock, part)
        else:
            got = unpack(download(url, integrity, part), files, part)
        for path, kept in zip(files, names):
            try:
                write_whole(os.path.join(staged, kept), got[path])
            except MatchboxError as exc:
                raise WasmError("cannot write the cache folder %s: %s" % (root, exc.why),
                                part) from None
        if os.path.isdir(dest) and not complete(dest, names):
            shutil.rmtree(dest)   # a folder left half-filled by hand: filled again
        try:
            os.rename(staged, dest)
        except OSError:
            if not complete(dest, names):   # else another command filled it meanwhile
                raise
    except OSError as exc:
        raise _unwritable(root, exc, part) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return dest


def _unwritable(root, exc, part=None):
    return WasmError("cannot write the cache folder %s: %s" % (root, exc.strerror or exc), part)


def npm_ci(npm, work, lock=None, part=None):
    """`npm ci` of the shipped package.json and lockfile in work; {path: bytes} of the part's
    files."""
    package_json = os.path.join(part.folder, "package.json") if part else PACKAGE_JSON
    for src, name in ((package_json, "package.json"),
                      (lock or (part.lock if part else LOCK), "package-lock.json")):
        with open(src, "rb") as f:
            write_whole(os.path.join(work, name), f.read())
    try:
        proc = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts",
                               "--loglevel=error"], cwd=work, capture_output=True, text=True,
                              timeout=TIMEOUT * 5)
    except subprocess.TimeoutExpired:
        raise WasmError("`npm ci` did not finish in %d s" % (TIMEOUT * 5), part) from None
    except OSError as exc:
        raise WasmError("cannot run npm (%s): %s" % (npm, exc.strerror or exc), part) from None
    if proc.returncode != 0:
        last = [line for line in (proc.stderr or proc.stdout).splitlines() if line.strip()]
        raise WasmError("`npm ci` failed (exit %d)%s" % (
            proc.returncode, ": " + " ".join(last[-1].split()) if last else ""), part)
    installed = os.path.join(work, "node_modules", *(part.name.split("/") if part
                                                     else resources.WASM_PACKAGE))
    out = {}
    for name in (part.files if part else FILES):
        try:
            with open(os.path.join(installed, *name.split("/")), "rb") as f:
                out[name] = f.read(MAX_TARBALL + 1)
        except FileNotFoundError:
            raise WasmError("`npm ci` installed no %s" % name, part) from None
        if len(out[name]) > MAX_TARBALL:
            raise WasmError("%s from `npm ci` is over %d MB" % (name, MAX_TARBALL >> 20), part)
    return out


def download(url, integrity, part=None):
    """The tarball at url, read within MAX_TARBALL bytes and checked against the lockfile's
    integrity ("sha512-" and the base64 digest) before anything else reads it."""
    algorithm, _, expected = integrity.partition("-")
    if algorithm != "sha512" or not expected:
        raise WasmError("the lockfile's integrity %r is not a sha512 one" % integrity, part)
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT) as r:
            data = r.read(MAX_TARBALL + 1)
    except urllib.error.HTTPError as exc:
        raise WasmError("cannot download %s: HTTP %d %s" % (url, exc.code, exc.reason),
                        part) from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", None) or exc   # URLError wraps the socket's OSError
        reason = getattr(reason, "strerror", None) or reason
        raise WasmError("cannot download %s: %s" % (url, reason), part) from None
    if len(data) > MAX_TARBALL:
        raise WasmError("%s is over %d MB, not the pinned package" % (url, MAX_TARBALL >> 20),
                        part)
    got = base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")
    if got != expected:
        raise WasmError("%s does not match the lockfile's integrity (sha512 %s..., got %s...): "
                        "refused, nothing kept" % (url, expected[:16], got[:16]), part)
    return data


def unpack(data, names, part=None):
    """{path: bytes} of package/PATH for each of names (paths in the package), out of the
    tarball's bytes; a member that could land outside its folder, or is not a regular file or
    folder, refuses it all."""
    out = {}
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            for member in tar:
                parts = member.name.replace("\\", "/").split("/")
                if member.name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
                    raise WasmError("the tarball has a member outside its folder (%r): refused"
                                    % member.name, part)
                if not (member.isfile() or member.isdir()):
                    raise WasmError("the tarball's %r is not a regular file: refused"
                                    % member.name, part)
                total += member.size
                if total > MAX_UNPACKED:
                    raise WasmError("the tarball unpacks to over %d MB: refused"
                                    % (MAX_UNPACKED >> 20), part)
                inside = "/".join(parts[1:])
                if member.isfile() and parts[0] == "package" and inside in names:
                    f = tar.extractfile(member)
                    assert f is not None   # a regular file
                    out[inside] = f.read(member.size)
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise WasmError("the tarball cannot be read: %s" % exc, part) from None
    missing = [n for n in names if n not in out]
    if missing:
        raise WasmError("the tarball has no %s" % ", ".join("package/" + n for n in missing),
                        part)
    return out

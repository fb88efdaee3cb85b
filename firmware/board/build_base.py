"""Build Matchbox's base firmware for the Pico and the Pico W from the sources in sources.json.

The base is MicroPython for the Raspberry Pi Pico (board MATCHBOX_PICO, a copy of RPI_PICO)
or the Pico W (MATCHBOX_PICO_W, a copy of RPI_PICO_W) with a 128 KB ROMFS partition and the
box's firmware/main.py frozen in. `--board pico` or `--board picow` picks one; both by
default. Steps:

1. lay the pinned sources the boards need out under .cache/base-firmware/src, each fetched
   with git from MATCHBOX_GIT_URL (default https://github.com/{owner}/{name}.git; a local
   mirror such as file:///mirrors/{owner}+{name}/repo is read in place) and written blob by
   blob, so a snapshot that lacks a blob the build does not need still works;
2. build picotool (no libusb) and mpy-cross, then the rp2 port with cmake directly;
3. check the result and write firmware/board/matchbox-pico-base.uf2 and base.json (the Pico
   W: matchbox-picow-base.uf2 and base-picow.json).

The build is reproducible: two checkouts in different folders give the same bytes
(SOURCE_DATE_EPOCH is the MicroPython tag's commit time, source paths are mapped to relative
ones). Run it with `make base-firmware`; `--check-only` rebuilds into the cache and compares
with the committed UF2 instead of replacing it.
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MAIN_PY = os.path.join(ROOT, "firmware", "main.py")
SOURCES = os.path.join(HERE, "sources.json")


class Board:
    """One base firmware: its key (--board), MicroPython board folder here, the hardware's name
    and the files it is written to."""

    def __init__(self, key, board, hardware, uf2, json_name):
        self.key, self.board, self.hardware = key, board, hardware
        self.dir = os.path.join(HERE, board)
        self.manifest = os.path.join(self.dir, "manifest.py")
        self.uf2 = os.path.join(HERE, uf2)
        self.json = os.path.join(HERE, json_name)


BOARDS = {b.key: b for b in (
    Board("pico", "MATCHBOX_PICO", "the Raspberry Pi Pico", "matchbox-pico-base.uf2", "base.json"),
    Board("picow", "MATCHBOX_PICO_W", "the Raspberry Pi Pico W", "matchbox-picow-base.uf2",
          "base-picow.json"),
)}
CACHE = os.path.join(ROOT, ".cache", "base-firmware")
SRC = os.path.join(CACHE, "src")
STAMP = os.path.join(SRC, ".sources.json")
EPOCH = os.path.join(SRC, ".source_date_epoch")
URL_VAR = "MATCHBOX_GIT_URL"
DEFAULT_URL = "https://github.com/{owner}/{name}.git"
REBUILD = "make base-firmware"
JOBS = str(os.cpu_count() or 2)

XIP_BASE = 0x10000000
UF2_MAGIC = (0x0A324655, 0x9E5D5157, 0x0AB16F30)
UF2_FAMILY_RP2040 = 0xE48BFF56
UF2_FLAG_FAMILY = 0x00002000
BI_MARKER_START, BI_MARKER_END = 0x7188EBF2, 0xE71AA390
BI_TYPE_BLOCK_DEVICE = 7


class BuildFailed(Exception):
    """A step failed; the message says which and why, in one line."""


def log(message):
    print("build_base: " + message, flush=True)


def run(cmd, cwd=None, env=None, quiet=True):
    """Run a command; raise BuildFailed with its last lines of output when it fails."""
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE if quiet else None,
                          stderr=subprocess.STDOUT if quiet else None, text=True)
    if proc.returncode != 0:
        tail = (proc.stdout or "").strip().splitlines()[-15:]
        raise BuildFailed("%s failed (exit %d)%s" % (" ".join(cmd[:3]), proc.returncode,
                                                    ":\n" + "\n".join(tail) if tail else ""))
    return proc.stdout or ""


def git(git_dir, *args, **kw):
    env = dict(os.environ, GIT_NO_LAZY_FETCH="1")
    return run(["git", "--git-dir=" + git_dir] + list(args), env=env, **kw)


TOOLS = (("git", "apt-get install git"), ("cmake", "apt-get install cmake"),
         ("make", "apt-get install make"), ("c++", "apt-get install g++"),
         ("arm-none-eabi-gcc", "apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi"))


def check_tools():
    for tool, how in TOOLS:
        if shutil.which(tool) is None:
            raise BuildFailed("%s not found: %s" % (tool, how))


def load_sources():
    with open(SOURCES) as f:
        return json.load(f)


def board_sources(sources, keys):
    """sources.json with only the sources the boards `keys` build from (a source with no
    "boards" list is used by every board)."""
    picked = [s for s in sources["sources"]
              if "boards" not in s or any(k in s["boards"] for k in keys)]
    return dict(sources, sources=picked)


# -- 1. sources -------------------------------------------------------------------------

def local_dir(url):
    """The folder of a local git URL (file://... or a path), or None for a remote one."""
    if url.startswith("file://"):
        return url[len("file://"):]
    if "://" not in url and ":" not in url.split("/")[0]:
        return url
    return None


def object_store(source, template):
    """A git directory holding the source's commit: a local mirror in place, else a fetch."""
    url = template.format(owner=source["owner"], name=source["name"])
    commit = source["commit"]
    where = local_dir(url)
    if where is None:
        where = os.path.join(CACHE, "git", "%s+%s.git" % (source["owner"], source["name"]))
        if not os.path.isdir(where):
            run(["git", "init", "-q", "--bare", where])
        if not has_commit(where, commit):
            log("fetching %s %s from %s" % (source["name"], commit[:12], url))
            git(where, "fetch", "-q", "--depth=1", "--no-tags", url, commit)
    if not has_commit(where, commit):
        raise BuildFailed("%s has no commit %s of %s/%s" % (url, commit, source["owner"], source["name"]))
    return where


def has_commit(git_dir, commit):
    return subprocess.run(["git", "--git-dir=" + git_dir, "cat-file", "-e", commit + "^{commit}"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env=dict(os.environ, GIT_NO_LAZY_FETCH="1")).returncode == 0


def write_tree(git_dir, commit, dest):
    """Write the commit's tree into dest blob by blob; returns the paths of missing blobs.

    Submodule entries (gitlinks) are left as empty folders for their own sources.
    """
    entries = []
    for rec in git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit).split("\0"):
        if not rec:
            continue
        meta, path = rec.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "commit":
            os.makedirs(os.path.join(dest, path), exist_ok=True)
        elif kind == "blob":
            entries.append((mode, oid, path))
    proc = subprocess.Popen(["git", "--git-dir=" + git_dir, "cat-file", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            env=dict(os.environ, GIT_NO_LAZY_FETCH="1"))

    def feed():
        for _, oid, _ in entries:
            proc.stdin.write(oid.encode() + b"\n")
        proc.stdin.close()

    feeder = threading.Thread(target=feed)
    feeder.start()
    missing = []
    for mode, oid, path in entries:
        header = proc.stdout.readline().split()
        if len(header) < 2 or header[1] == b"missing":
            missing.append(path)
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)  # the newline after each object
        full = os.path.join(dest, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if mode == "120000":
            os.symlink(data.decode(), full)
            continue
        with open(full, "wb") as f:
            f.write(data)
        if mode == "100755":
            os.chmod(full, 0o755)
    feeder.join()
    proc.wait()
    return missing


def gitlink(git_dir, commit, path):
    """The commit a gitlink at path in the tree pins, or None."""
    out = git(git_dir, "ls-tree", commit, path).split()
    return out[2] if len(out) >= 3 and out[1] == "commit" else None


def read_stamp():
    """{path: commit} of the sources laid out under SRC, or {} (nothing, or an older layout)."""
    try:
        with open(STAMP) as f:
            laid = json.load(f)
    except (OSError, ValueError):
        return {}
    return laid if isinstance(laid, dict) and os.path.exists(EPOCH) else {}


def lay_out_sources(sources, template):
    """Write every pinned source under SRC; one already there at its commit is kept (the
    MicroPython tree first: when it is written afresh, so are the submodules inside it)."""
    laid = read_stamp()
    stores = {}
    for source in sources["sources"]:
        path, commit = source["path"], source["commit"]
        store = object_store(source, template)
        stores[path] = (store, commit)
        if laid.get(path) == commit:
            continue
        dest = os.path.join(SRC, path)
        if source["name"] == "micropython":
            shutil.rmtree(SRC, ignore_errors=True)
            laid = {}
        else:
            shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        missing = write_tree(store, commit, dest)
        laid[path] = commit
        log("%s %s -> %s%s" % (source["name"], commit[:12], path,
                               "; %d blob(s) missing from the snapshot, not needed: %s"
                               % (len(missing), ", ".join(missing)) if missing else ""))
    # Each submodule must be the commit its parent tree pins (sources.json is checked, not trusted).
    for path, (_, commit) in stores.items():
        parent = os.path.dirname(os.path.dirname(path))
        if parent in stores:
            store, parent_commit = stores[parent]
            pinned = gitlink(store, parent_commit, os.path.relpath(path, parent))
            if pinned != commit:
                raise BuildFailed("sources.json pins %s at %s but %s pins %s"
                                  % (path, commit[:12], parent, (pinned or "nothing")[:12]))
    store, commit = stores[next(s["path"] for s in sources["sources"] if s["name"] == "micropython")]
    with open(EPOCH, "w") as f:
        f.write(git(store, "log", "-1", "--format=%ct", commit))
    with open(STAMP, "w") as f:
        json.dump(laid, f, sort_keys=True)


# -- 2. build ---------------------------------------------------------------------------

def source_path(sources, name):
    for s in sources["sources"]:
        if s["name"] == name:
            return os.path.join(SRC, s["path"])
    raise BuildFailed("sources.json has no %s" % name)


def commit_time():
    """SOURCE_DATE_EPOCH: the committer time of the MicroPython commit (the tag's), noted when
    the sources were laid out."""
    with open(EPOCH) as f:
        return f.read().strip()


def build_env(sources):
    mp = next(s for s in sources["sources"] if s["name"] == "micropython")
    # Paths inside the checkout become relative ones, so the checkout's folder leaves no trace.
    prefix_map = "-ffile-prefix-map=%s/=" % ROOT
    return dict(
        os.environ,
        SOURCE_DATE_EPOCH=commit_time(),
        MICROPY_GIT_TAG=sources["micropython_version"],
        MICROPY_GIT_HASH=mp["commit"][:10],
        GIT_CEILING_DIRECTORIES=os.path.dirname(SRC),
        CFLAGS=prefix_map, CXXFLAGS=prefix_map, ASMFLAGS=prefix_map,
        LC_ALL="C", TZ="UTC",
    )


def build_picotool(sources, env):
    prefix = os.path.join(CACHE, "tools", "picotool")
    config = os.path.join(prefix, "lib", "cmake", "picotool")
    if os.path.isdir(config):
        return config
    log("building picotool (about a minute)")
    bdir = os.path.join(CACHE, "build", "picotool")
    shutil.rmtree(bdir, ignore_errors=True)
    run(["cmake", "-S", source_path(sources, "picotool"), "-B", bdir,
         "-DPICO_SDK_PATH=" + source_path(sources, "pico-sdk"), "-DPICOTOOL_NO_LIBUSB=1",
         "-DCMAKE_INSTALL_PREFIX=" + prefix], env=env)
    run(["make", "-C", bdir, "-j", JOBS, "install"], env=env)
    return config


def build_firmware(sources, env, picotool_config, board):
    mp = source_path(sources, "micropython")
    log("building mpy-cross")
    run(["make", "-C", os.path.join(mp, "mpy-cross"), "-j", JOBS], env=env)
    bdir = os.path.join(CACHE, "build", board.board)
    shutil.rmtree(bdir, ignore_errors=True)
    log("building MicroPython %s for %s (a minute or more)"
        % (sources["micropython_version"], board.board))
    # cmake directly: `make -C ports/rp2 CMAKE_ARGS=...` silently drops BOARD_DIR.
    run(["cmake", "-S", os.path.join(mp, "ports", "rp2"), "-B", bdir,
         "-DMICROPY_BOARD=" + board.board, "-DMICROPY_BOARD_DIR=" + board.dir,
         "-DMICROPY_FROZEN_MANIFEST=" + board.manifest, "-Dpicotool_DIR=" + picotool_config],
        env=env)
    run(["make", "-C", bdir, "-j", JOBS], env=env)
    return bdir


# -- 3. check and record ----------------------------------------------------------------

def uf2_blocks(data):
    """[(target address, payload)] of a UF2 image; BuildFailed when a block is malformed."""
    if len(data) % 512:
        raise BuildFailed("UF2 size %d is not a multiple of 512" % len(data))
    blocks = []
    total = len(data) // 512
    for i in range(total):
        blk = data[i * 512:(i + 1) * 512]
        m0, m1, flags, addr, size, no, count, family = struct.unpack_from("<8I", blk)
        if (m0, m1) != UF2_MAGIC[:2] or struct.unpack_from("<I", blk, 508)[0] != UF2_MAGIC[2]:
            raise BuildFailed("block %d: bad magic" % i)
        if not flags & UF2_FLAG_FAMILY or family != UF2_FAMILY_RP2040:
            raise BuildFailed("block %d: not an RP2040 block" % i)
        if size != 256 or no != i or count != total:
            raise BuildFailed("block %d: size %d, number %d of %d" % (i, size, no, count))
        blocks.append((addr, blk[32:32 + size]))
    return blocks


def block_devices(image, base=XIP_BASE):
    """{name: (address, size)} from the binary info of a flash image starting at base."""
    def word(addr):
        return struct.unpack_from("<I", image, addr - base)[0]

    def cstr(addr):
        off = addr - base
        return image[off:image.index(b"\0", off)].decode()

    for off in range(0, min(len(image), 0x400) - 20, 4):
        if struct.unpack_from("<I", image, off)[0] == BI_MARKER_START \
                and struct.unpack_from("<I", image, off + 16)[0] == BI_MARKER_END:
            start, end = struct.unpack_from("<II", image, off + 4)
            break
    else:
        raise BuildFailed("no binary info in the image")
    found = {}
    for entry in range(start, end, 4):
        ptr = word(entry)
        kind = struct.unpack_from("<H", image, ptr - base)[0]
        if kind == BI_TYPE_BLOCK_DEVICE:
            name_ptr, address, size = struct.unpack_from("<III", image, ptr - base + 4)
            found[cstr(name_ptr)] = (address, size)
    return found


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def check_and_describe(sources, bdir, board):
    """Check the build; returns (uf2 bytes, base.json dict)."""
    with open(os.path.join(bdir, "firmware.bin"), "rb") as f:
        image = f.read()
    with open(os.path.join(bdir, "firmware.uf2"), "rb") as f:
        uf2 = f.read()
    if b"ROMFS" not in image:
        raise BuildFailed("firmware.bin has no ROMFS partition: the board folder was not used")
    with open(os.path.join(bdir, "frozen_content.c")) as f:
        frozen = f.read()
    if '"main.py\\0"' not in frozen:
        raise BuildFailed("main.py is not frozen into the firmware (check %s)" % board.manifest)
    devices = block_devices(image)
    romfs, storage = devices.get("ROMFS"), devices.get("MicroPython")
    if not romfs or not storage:
        raise BuildFailed("binary info names no ROMFS or storage block device: %s" % devices)
    blocks = uf2_blocks(uf2)
    top = max(addr + len(payload) for addr, payload in blocks)
    if top > romfs[0]:
        raise BuildFailed("the firmware (to 0x%08x) runs into the ROMFS partition at 0x%08x"
                          % (top, romfs[0]))
    gcc = run(["arm-none-eabi-gcc", "--version"]).splitlines()[0]
    with open(MAIN_PY, "rb") as f:
        main_sha = sha256(f.read())
    info = {
        "what": "MicroPython for %s (board %s) with a ROMFS partition and firmware/main.py "
                "frozen in; the box's modules go in a ROMFS image" % (board.hardware, board.board),
        "micropython_version": sources["micropython_version"],
        "sources": [{k: s[k] for k in ("owner", "name", "commit", "path", "licence")}
                    for s in sources["sources"]],
        "toolchain": gcc,
        "source_date_epoch": int(commit_time()),
        "uf2": os.path.basename(board.uf2),
        "uf2_sha256": sha256(uf2),
        "uf2_size": len(uf2),
        "firmware_end": "0x%08x" % top,
        "romfs_address": "0x%08x" % romfs[0],
        "romfs_size": romfs[1],
        "littlefs_offset": "0x%05x" % (storage[0] - XIP_BASE),
        "littlefs_size": storage[1],
        "frozen_main_py_sha256": main_sha,
        "rebuild": REBUILD,
        "reproducible": "the same bytes from any checkout folder with this toolchain; "
                        "check with `build_base.py --check-only` in another checkout",
    }
    return uf2, info


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--board", action="append", choices=sorted(BOARDS),
                        help="the base to build (repeatable; default: all of them)")
    parser.add_argument("--check-only", action="store_true",
                        help="build and compare with the committed UF2; write nothing")
    args = parser.parse_args(argv)
    boards = [BOARDS[k] for k in BOARDS if k in (args.board or BOARDS)]
    differ = 0
    try:
        check_tools()
        everything = load_sources()
        sources = board_sources(everything, [b.key for b in boards])
        lay_out_sources(sources, os.environ.get(URL_VAR, DEFAULT_URL))
        env = build_env(sources)
        picotool = build_picotool(sources, env)
        for board in boards:
            own = board_sources(everything, [board.key])
            bdir = build_firmware(own, env, picotool, board)
            uf2, info = check_and_describe(own, bdir, board)
            differ += record(board, uf2, info, args.check_only)
    except (BuildFailed, OSError) as exc:
        print("build_base: %s" % exc, file=sys.stderr)
        return 1
    return 1 if differ else 0


def record(board, uf2, info, check_only):
    """Write the board's UF2 and JSON, or (check_only) compare; returns 1 when they differ."""
    if check_only:
        with open(board.uf2, "rb") as f:
            same = f.read() == uf2
        log("%s the committed %s (sha256 %s)" % ("same bytes as" if same else "DIFFERS from",
                                                os.path.basename(board.uf2), info["uf2_sha256"]))
        return 0 if same else 1
    with open(board.uf2, "wb") as f:
        f.write(uf2)
    with open(board.json, "w") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    log("wrote %s (%d bytes, sha256 %s) and %s" % (os.path.relpath(board.uf2, ROOT), len(uf2),
                                                  info["uf2_sha256"], os.path.relpath(board.json, ROOT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

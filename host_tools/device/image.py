"""Matchbox's firmware image: the base UF2 plus a ROMFS image of the box's code, as one file.

`python -m host_tools.device.image` (`make uf2`) writes dist/matchbox-pico.uf2 and
dist/matchbox-picow.uf2 with no C toolchain: the base firmware in firmware/board/ (MicroPython
v1.28.0 for the Pico, or the Pico W, with a ROMFS partition, built from pinned sources:
firmware/board/README.md) and, at the partition's address, a ROMFS image of the box's modules
compiled with mpy-cross and the default pin map (the same image for both boards).
Dragged onto a Pico in BOOTSEL mode it runs the box; the littlefs area, where the box keeps its
games, is not in the file, so a box keeps its games when it gets a new image.

The ROMFS image is written with mpremote's own writer (mpremote.romfs.VfsRomWriter). The UF2
blocks are written here: the format is 512-byte blocks with a 32-byte header (the UF2
specification, github.com/microsoft/uf2), and what is needed, merging two images into one
file with every block renumbered, is a dozen lines that no PyPI converter does (they convert
one binary at one address per file).
"""
import argparse
import hashlib
import json
import os
import shutil
import struct
import sys
import tempfile

from mpremote.romfs import VfsRomWriter

from host_tools import resources
from host_tools.errors import MatchboxError
from host_tools.device import build
from host_tools.resources import FIRMWARE

BOARD = os.path.join(FIRMWARE, "board")
# Each board's base firmware (UF2, its description) and MicroPython board folder.
BASES = {
    "pico": ("matchbox-pico-base.uf2", "base.json", "MATCHBOX_PICO"),
    "picow": ("matchbox-picow-base.uf2", "base-picow.json", "MATCHBOX_PICO_W"),
}
BOARDS = tuple(BASES)
BASE_UF2 = os.path.join(BOARD, BASES["pico"][0])
BASE_JSON = os.path.join(BOARD, BASES["pico"][1])
DIST = os.path.join(resources.CHECKOUT or os.getcwd(), "dist")


def base_files(board="pico"):
    """(base UF2, base JSON) paths of a board ("pico" or "picow")."""
    uf2, info, _folder = BASES[board]
    return os.path.join(BOARD, uf2), os.path.join(BOARD, info)

UF2_MAGIC = (0x0A324655, 0x9E5D5157)
UF2_END = 0x0AB16F30
UF2_FAMILY_FLAG = 0x2000
RP2040_FAMILY = 0xE48BFF56
PAYLOAD = 256
XIP_BASE = 0x10000000
ROMFS_HEADER = VfsRomWriter.ROMFS_HEADER
# Board files that stay out of the ROMFS image: main.py is frozen into the base firmware.
NOT_IN_ROMFS = ("main.py", "boot.py")


class ImageError(MatchboxError):
    """A UF2 or ROMFS image that cannot be used: the message says which and why."""


# --- UF2 ----------------------------------------------------------------------------------------

def read_uf2(data, name="UF2"):
    """[(address, 256-byte payload)] of an RP2040 UF2, in file order; ImageError otherwise."""
    if not data or len(data) % 512:
        raise ImageError("%s is not a UF2 file (%d bytes, not a whole number of 512-byte blocks)"
                         % (name, len(data)))
    blocks = []
    total = None
    for i in range(0, len(data), 512):
        m0, m1, flags, addr, size, number, count, family = struct.unpack_from("<8I", data, i)
        if (m0, m1) != UF2_MAGIC or struct.unpack_from("<I", data, i + 508)[0] != UF2_END:
            raise ImageError("%s is not a UF2 file (block %d has no UF2 magic)" % (name, i // 512))
        if not flags & UF2_FAMILY_FLAG or family != RP2040_FAMILY:
            raise ImageError("%s is not for the RP2040 (block %d: family 0x%08x)"
                             % (name, i // 512, family if flags & UF2_FAMILY_FLAG else 0))
        if size != PAYLOAD or addr % PAYLOAD:
            raise ImageError("%s block %d has a payload of %d bytes at 0x%08x (256-byte pages "
                             "expected)" % (name, i // 512, size, addr))
        if number != i // 512 or (total is not None and count != total):
            raise ImageError("%s is damaged: block %d is numbered %d of %d"
                             % (name, i // 512, number, count))
        total = count
        blocks.append((addr, bytes(data[i + 32:i + 32 + PAYLOAD])))
    if total != len(blocks):
        raise ImageError("%s is cut short: %d of %d blocks" % (name, len(blocks), total))
    return blocks


def write_uf2(blocks):
    """UF2 bytes for [(address, 256-byte payload)], numbered in order."""
    out = bytearray()
    for number, (addr, payload) in enumerate(blocks):
        out += struct.pack("<8I", UF2_MAGIC[0], UF2_MAGIC[1], UF2_FAMILY_FLAG, addr, PAYLOAD,
                           number, len(blocks), RP2040_FAMILY)
        out += payload + bytes(476 - PAYLOAD)
        out += struct.pack("<I", UF2_END)
    return bytes(out)


def blocks_of(data, address):
    """The 256-byte pages of `data` placed at `address` (the last one padded with 0xFF, as
    erased flash reads)."""
    pages = []
    for offset in range(0, len(data), PAYLOAD):
        page = data[offset:offset + PAYLOAD]
        pages.append((address + offset, page + b"\xff" * (PAYLOAD - len(page))))
    return pages


# --- the base -----------------------------------------------------------------------------------

def base_info(path=BASE_JSON):
    """The base firmware's facts (base.json): version, sources, ROMFS partition, sha256."""
    try:
        with open(path) as f:
            info = json.load(f)
        info["romfs_address"] = int(str(info["romfs_address"]), 0)
        info["romfs_size"] = int(info["romfs_size"])
        info["uf2_sha256"] = str(info["uf2_sha256"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ImageError("cannot read the base firmware's description %s: %s" % (path, exc))
    return info


def base_blocks(info, path=BASE_UF2):
    """The base UF2's blocks, checked against base.json (sha256) and the partition."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise ImageError("cannot read the base firmware %s: %s" % (path, exc.strerror or exc))
    digest = hashlib.sha256(data).hexdigest()
    if digest != info["uf2_sha256"]:
        raise ImageError("the base firmware %s has sha256 %s, base.json says %s: rebuild it "
                         "(make base-firmware) or restore it from git"
                         % (path, digest, info["uf2_sha256"]))
    blocks = read_uf2(data, os.path.basename(path))
    lo = info["romfs_address"]
    hi = lo + info["romfs_size"]
    for addr, _ in blocks:
        if lo <= addr < hi:
            raise ImageError("the base firmware has a block at 0x%08x, inside its own ROMFS "
                             "partition" % addr)
    return blocks


# --- ROMFS --------------------------------------------------------------------------------------

def _add_tree(writer, folder):
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            writer.opendir(name)
            _add_tree(writer, path)
            writer.closedir()
        else:
            with open(path, "rb") as f:
                writer.mkfile(name, f.read())


def romfs_image(root=FIRMWARE):
    """(ROMFS image bytes, [(path in /rom, sha256)]): the box's modules as .mpy and the pin map,
    laid out as on littlefs (lib/box/..., lib/tycoon/..., the pin map). Raises
    build.BuildError when a module does not compile."""
    with tempfile.TemporaryDirectory(prefix="matchbox-romfs-") as tmp:
        staged = build.stage(tmp, root=root)
        for name in NOT_IN_ROMFS:
            if os.path.exists(os.path.join(tmp, name)):
                os.remove(os.path.join(tmp, name))
        writer = VfsRomWriter()
        _add_tree(writer, tmp)
        files = [(name, digest) for name, digest in staged if name not in NOT_IN_ROMFS]
        return writer.finalise(), files


def romfs_size(head):
    """The length of a ROMFS image from its first bytes (header and size), or None when they
    are not a ROMFS header."""
    if not head.startswith(ROMFS_HEADER):
        return None
    size = 0
    for i, value in enumerate(head[3:], 3):
        size = (size << 7) | (value & 0x7F)
        if not value & 0x80:
            return i + 1 + size
    return None


def romfs_in_uf2(data, info=None):
    """The ROMFS image a UF2 carries at the base's partition address (bytes), or None (stock
    MicroPython, or a UF2 that is not one). Raises ImageError when `data` is not a UF2."""
    info = info or base_info()
    pages = {addr: payload for addr, payload in read_uf2(data)}
    at = info["romfs_address"]
    size = romfs_size(pages.get(at, b"")[:16])
    if size is None or size > info["romfs_size"]:
        return None
    out = bytearray()
    for addr in range(at, at + size, PAYLOAD):
        if addr not in pages:
            return None
        out += pages[addr]
    return bytes(out[:size])


# --- the whole image ----------------------------------------------------------------------------

def make_uf2(root=FIRMWARE, base_json=None, base_uf2=None, board="pico", romfs=None):
    """(UF2 bytes, facts): the board's base firmware with the box's ROMFS image in its
    partition. `romfs` is a (bytes, files) pair from romfs_image() to reuse, else it is made."""
    default_uf2, default_json = base_files(board)
    info = base_info(base_json or default_json)
    blocks = base_blocks(info, base_uf2 or default_uf2)
    romfs, files = romfs or romfs_image(root)
    if len(romfs) > info["romfs_size"]:
        raise ImageError("the box's ROMFS image takes %d bytes, the partition holds %d: make "
                         "the partition larger in firmware/board/%s and rebuild the base"
                         % (len(romfs), info["romfs_size"], BASES[board][2]))
    merged = sorted(blocks + blocks_of(romfs, info["romfs_address"]))
    facts = {"base": info.get("micropython_version", "?"), "base_sha256": info["uf2_sha256"],
             "romfs_bytes": len(romfs), "romfs_sha256": hashlib.sha256(romfs).hexdigest(),
             "romfs_partition_bytes": info["romfs_size"], "files": files}
    return write_uf2(merged), facts


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m host_tools.device.image",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--board", action="append", choices=BOARDS,
                        help="the board's image only (repeatable; default: every board's, or "
                             "pico with -o)")
    parser.add_argument("-o", "--output",
                        help="where to write the UF2 (one board; default: dist/%s, dist/%s)"
                             % (resources.IMAGE_NAMES["pico"], resources.IMAGE_NAMES["picow"]))
    args = parser.parse_args(argv)
    boards = args.board or (["pico"] if args.output else list(BOARDS))
    if args.output and len(boards) > 1:
        parser.error("-o writes one board's image: give one --board")
    try:
        romfs = romfs_image()
        made = [(board, make_uf2(board=board, romfs=romfs)) for board in boards]
    except ImageError as exc:
        print("make uf2: %s" % exc, file=sys.stderr)
        return 2
    except build.BuildError as exc:
        for err in exc.errors:
            print(build.format_error(err), file=sys.stderr)
        print("make uf2: the firmware does not compile; no image written", file=sys.stderr)
        return 1
    for board, (data, facts) in made:
        out = args.output or os.path.join(DIST, resources.IMAGE_NAMES[board])
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        tmp = out + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        shutil.move(tmp, out)
        print("wrote %s: %d bytes, sha256 %s" % (os.path.relpath(out), len(data),
                                                 hashlib.sha256(data).hexdigest()))
        print("  base MicroPython %s for %s (sha256 %s...), ROMFS image %d of %d bytes "
              "(sha256 %s...), %d files"
              % (facts["base"], board, facts["base_sha256"][:12], facts["romfs_bytes"],
                 facts["romfs_partition_bytes"], facts["romfs_sha256"][:12], len(facts["files"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())

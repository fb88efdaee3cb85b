"""The committed base firmwares (firmware/board/matchbox-pico-base.uf2 against base.json, and
matchbox-picow-base.uf2 against base-picow.json): the same bytes, well-formed RP2040 UF2
blocks that leave the ROMFS partition and the littlefs alone, the partitions where the stock
firmware keeps its littlefs, and the frozen main.py still the one in firmware/ (else: run
`make base-firmware`)."""
import hashlib
import json
import os
import re
import struct

import pytest

from host_tools.resources import FIRMWARE

BOARD = os.path.join(FIRMWARE, "board")
XIP_BASE = 0x10000000
FLASH_BYTES = 2 * 1024 * 1024   # the W25Q16 of the Pico and of the Pico W
# board: (UF2, JSON, MicroPython board, (littlefs), (ROMFS)) with (address, bytes): the stock
# firmware's littlefs (RPI_PICO: 1408 KB, RPI_PICO_W: 848 KB, both ending the flash) and the
# 128 KB ROMFS partition just below it.
BASES = {
    "pico": ("matchbox-pico-base.uf2", "base.json", "MATCHBOX_PICO",
             (0x100A0000, 1408 * 1024), (0x10080000, 128 * 1024)),
    "picow": ("matchbox-picow-base.uf2", "base-picow.json", "MATCHBOX_PICO_W",
              (0x1012C000, 848 * 1024), (0x1010C000, 128 * 1024)),
}


@pytest.fixture(scope="module", params=sorted(BASES))
def board(request):
    return request.param


@pytest.fixture(scope="module")
def base(board):
    with open(os.path.join(BOARD, BASES[board][1])) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def uf2(board):
    with open(os.path.join(BOARD, BASES[board][0]), "rb") as f:
        return f.read()


def blocks(data):
    """[(address, payload)] after checking every UF2 block's framing."""
    assert len(data) % 512 == 0 and data
    total = len(data) // 512
    out = []
    for i in range(total):
        blk = data[i * 512:(i + 1) * 512]
        magic0, magic1, flags, addr, size, number, count, family = struct.unpack_from("<8I", blk)
        assert (magic0, magic1) == (0x0A324655, 0x9E5D5157), "block %d: start magics" % i
        assert struct.unpack_from("<I", blk, 508)[0] == 0x0AB16F30, "block %d: end magic" % i
        assert flags & 0x2000 and family == 0xE48BFF56, "block %d: not an RP2040 block" % i
        assert size == 256 and addr % 256 == 0, "block %d: payload %d at 0x%x" % (i, size, addr)
        assert (number, count) == (i, total), "block %d numbered %d of %d" % (i, number, count)
        out.append((addr, blk[32:32 + size]))
    return out


def flash_image(data):
    bl = blocks(data)
    image = bytearray(max(a + len(p) for a, p in bl) - XIP_BASE)
    for addr, payload in bl:
        image[addr - XIP_BASE:addr - XIP_BASE + len(payload)] = payload
    return bytes(image)


def block_devices(image):
    """{name: (address, size)}: the block devices the firmware's binary info declares."""
    def at(addr, fmt):
        return struct.unpack_from(fmt, image, addr - XIP_BASE)

    for off in range(0, 0x400, 4):
        if struct.unpack_from("<I", image, off)[0] == 0x7188EBF2:
            start, end = struct.unpack_from("<II", image, off + 4)
            break
    else:
        raise AssertionError("no binary info in the image")
    found = {}
    for entry in range(start, end, 4):
        ptr, = at(entry, "<I")
        if at(ptr, "<H")[0] == 7:   # BINARY_INFO_TYPE_BLOCK_DEVICE
            name_ptr, address, size = at(ptr + 4, "<III")
            name_off = name_ptr - XIP_BASE
            found[image[name_off:image.index(b"\0", name_off)].decode()] = (address, size)
    return found


def test_uf2_is_the_one_base_json_describes(board, base, uf2):
    assert hashlib.sha256(uf2).hexdigest() == base["uf2_sha256"]
    assert len(uf2) == base["uf2_size"]
    assert base["uf2"] == BASES[board][0]
    assert "(board %s)" % BASES[board][2] in base["what"]


def test_blocks_are_rp2040_uf2_and_leave_romfs_and_littlefs_alone(base, uf2):
    romfs = int(base["romfs_address"], 16)
    romfs_end = romfs + base["romfs_size"]
    littlefs = XIP_BASE + int(base["littlefs_offset"], 16)
    assert romfs_end <= littlefs
    assert littlefs + base["littlefs_size"] == XIP_BASE + FLASH_BYTES
    addresses = [addr for addr, _ in blocks(uf2)]
    assert len(set(addresses)) == len(addresses)
    for addr in addresses:
        assert XIP_BASE <= addr and addr + 256 <= romfs, "a block at 0x%08x" % addr


def test_partitions_are_where_the_firmware_says_and_where_the_box_needs_them(board, base, uf2):
    devices = block_devices(flash_image(uf2))
    assert devices["ROMFS"] == (int(base["romfs_address"], 16), base["romfs_size"])
    assert devices["MicroPython"] == (XIP_BASE + int(base["littlefs_offset"], 16), base["littlefs_size"])
    # The stock RPI_PICO (RPI_PICO_W) firmware keeps its littlefs here: saved games survive a
    # change of firmware.
    assert devices["MicroPython"] == BASES[board][3]
    assert devices["ROMFS"] == BASES[board][4]
    # the code (for the Pico W with the CYW43's firmware in it) ends below the partition
    top = max(addr + len(payload) for addr, payload in blocks(uf2))
    assert int(base["firmware_end"], 16) == top <= devices["ROMFS"][0]


def test_the_pico_w_base_freezes_what_the_stock_pico_w_firmware_does(uf2, board):
    image = flash_image(uf2)
    # RPI_PICO_W's manifest: micropython-lib's networking bundle and aioble
    wanted = [b"ntptime", b"webrepl", b"requests", b"aioble", b"network"]
    if board == "picow":
        assert all(name in image for name in wanted), [n for n in wanted if n not in image]
        assert b"Raspberry Pi Pico W" in image
    else:
        assert b"aioble" not in image and b"webrepl" not in image


def test_frozen_main_py_is_firmware_main_py(base, uf2):
    with open(os.path.join(FIRMWARE, "main.py"), "rb") as f:
        main = f.read()
    assert hashlib.sha256(main).hexdigest() == base["frozen_main_py_sha256"], \
        "firmware/main.py changed since the base firmware was built: run `make base-firmware`"
    # and it is in the image: the message it prints is among the frozen constants
    message = re.search(rb'print\("(Matchbox: [^"%]+)', main).group(1)
    assert message in flash_image(uf2)


def test_base_json_names_the_pinned_sources(board, base):
    with open(os.path.join(BOARD, "sources.json")) as f:
        pinned = json.load(f)
    assert base["micropython_version"] == pinned["micropython_version"]
    # every source with no "boards" list, and those naming this board (the Pico W's radio
    # driver, TCP/IP stack and Bluetooth stack)
    assert [(s["name"], s["commit"]) for s in base["sources"]] == \
        [(s["name"], s["commit"]) for s in pinned["sources"] if board in s.get("boards", [board])]
    names = [s["name"] for s in base["sources"]]
    assert ("cyw43-driver" in names) == ("lwip" in names) == ("btstack" in names) == (board == "picow")
    assert base["rebuild"] == "make base-firmware"

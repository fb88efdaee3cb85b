"""UF2 files the tests make themselves, shaped like MicroPython's for the RP2040: 256-byte pages
of filler code, pico-sdk binary info after the boot stage 2 (program name, version, board and
MicroPython's block device, one entry reached through the address mapping table as data copied
to RAM is), and nothing in the filesystem's range. No MicroPython binary is in the repository.
"""
import random
import struct

RP2040 = 0xE48BFF56
XIP = 0x10000000
# Where the official builds keep littlefs: RPI_PICO 1408 KB, RPI_PICO_W 848 KB, at the top of 2 MB.
LAYOUTS = {"pico": (0x100A0000, 1408 * 1024), "picow": (0x1012C000, 848 * 1024)}


def _id_string(ident, text_at):
    return struct.pack("<2HII", 6, 0x5052, ident, text_at)


def micropython_uf2(board="pico", version="v1.28.0", program="MicroPython", drives=None,
                    family=RP2040, info=True, code_kb=64, seed=1, extra_blocks=()):
    """UF2 bytes of a MicroPython-like firmware. `drives`: [(name, address, size)] of the block
    devices its binary info declares (default MicroPython's for `board`); `info`: False for no
    binary info at all; `extra_blocks`: (address, payload) pages added as they are."""
    assert code_kb >= 40, "the binary info sits at 32 KB into the code"
    rng = random.Random(seed)
    flash = bytearray(rng.randrange(256) for _ in range(code_kb * 1024))
    strings = {}
    at = 0x8000
    board = {"pico": "pico", "picow": "pico_w"}.get(board, board)
    for text in filter(None, (program, version, board, "MicroPython", "unused")):
        strings[text] = XIP + at
        flash[at:at + len(text) + 1] = text.encode() + b"\0"
        at += 64
    entries = []
    if program:
        entries.append(_id_string(0x02031C86, strings[program]))
    if version:
        entries.append(_id_string(0x11A9BC3A, strings[version]))
    entries.append(_id_string(0xB63CFFBB, strings[board]))
    entries.append(struct.pack("<2HI", 5, 0x5052, 0x68F465DE) + struct.pack("<i", 0x1234))
    if drives is None:
        drives = [("MicroPython",) + LAYOUTS["picow" if board == "pico_w" else "pico"]]
    ram = []
    for n, (name, address, size) in enumerate(drives):
        name_at = strings.setdefault(name, XIP + at)
        if name_at == XIP + at:
            flash[at:at + len(name) + 1] = name.encode() + b"\0"
            at += 64
        entry = struct.pack("<2H4IH", 7, 0x504D, name_at, address, size, 0, 3)
        if n == 0:
            ram.append(entry)   # the first drive's entry is in RAM, as copied data is
        else:
            entries.append(entry)
    # the entries themselves, then the pointer table, the mapping table, the header
    pointers = []
    for entry in entries:
        flash[at:at + len(entry)] = entry
        pointers.append(XIP + at)
        at += 32
    data_src = at
    ram_base = 0x20000100
    for entry in ram:
        flash[at:at + len(entry)] = entry
        pointers.append(ram_base + at - data_src)
        at += 32
    table = at
    flash[table:table + 4 * len(pointers)] = struct.pack("<%dI" % len(pointers), *pointers)
    at += 4 * len(pointers) + 16
    mapping = at
    flash[mapping:mapping + 24] = struct.pack("<6I", XIP + data_src, ram_base,
                                              ram_base + 32 * len(ram), 0, 0, 0)
    if info:
        flash[0x1C0:0x1D4] = struct.pack("<5I", 0x7188EBF2, XIP + table,
                                         XIP + table + 4 * len(pointers), XIP + mapping,
                                         0xE71AA390)
    pages = [(XIP + i, bytes(flash[i:i + 256])) for i in range(0, len(flash), 256)]
    pages += list(extra_blocks)
    return blocks(pages, family)


def blocks(pages, family=RP2040):
    """UF2 bytes for [(address, 256-byte payload)]."""
    out = bytearray()
    for n, (addr, payload) in enumerate(pages):
        out += struct.pack("<8I", 0x0A324655, 0x9E5D5157, 0x2000, addr, 256, n, len(pages), family)
        out += payload + bytes(476 - len(payload)) + struct.pack("<I", 0x0AB16F30)
    return bytes(out)

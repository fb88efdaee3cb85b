"""What a board is and what the box keeps on it, in words flash, doctor and uf2 use: its
MicroPython and .mpy format, whether it is a MicroPython the box supports and whether it can
import this build's .mpy files, what its boot ROM is, and where the box's journal keeps its
games (docs/journal.md).
"""
from host_tools.device import build

# The box runs on official MicroPython for the Pico and the Pico W from this version on.
SUPPORTED = (1, 28, 0)
SUPPORTED_TEXT = "%d.%d.%d" % SUPPORTED
DOWNLOAD = {"pico": "https://micropython.org/download/RPI_PICO/",
            "picow": "https://micropython.org/download/RPI_PICO_W/"}

# The RP2040's boot ROM: 16 KB from address 0, its magic and version ('Mu', 1) at 0x10
# (`doctor --boot-rom` reads it from a Pico; the emulated Pico runs it).
BOOT_ROM_SIZE = 16384
BOOT_ROM_MAGIC = (0x10, b"Mu\x01")


def boot_rom_magic(data):
    """Whether `data` holds the RP2040 boot ROM's magic at its place."""
    at, magic = BOOT_ROM_MAGIC
    return bytes(data[at:at + len(magic)]) == magic


GAMES = "/games"
CURRENT = GAMES + "/current.txt"
ARCHIVE = GAMES + "/archive"
DAMAGED = GAMES + "/damaged"      # damaged records the box kept
BROKEN = GAMES + "/broken.txt"


def board_mpy(mpy):
    """(version, sub_version, arch name) from sys.implementation._mpy."""
    arch = mpy >> 10
    names = build.ARCH_NAMES
    return mpy & 0xFF, (mpy >> 8) & 3, names[arch] if arch < len(names) else "arch%d" % arch


def incompatibility(info, local_version, native_archs=()):
    """Why the board cannot import our .mpy files, or None when it can.

    Rule (docs/reference/mpyfiles.rst): the .mpy version must equal the board's. Sub-version
    and architecture only matter for native code; the firmware is plain bytecode, so they
    are checked only when a staged file carries native code (native_archs not empty).
    """
    version = ".".join(str(v) for v in info["version"][:3])
    if info["mpy"] is None:
        return ("the board's MicroPython %s cannot import .mpy files: flash with --source" % version)
    b_version, b_sub, b_arch = board_mpy(info["mpy"])
    if b_version != local_version[0]:
        return ("the board's MicroPython %s loads mpy v%d, but this mpy-cross makes mpy v%d.%d: "
                "install a matching MicroPython UF2 on the Pico (v1.19 or later reads mpy v6), "
                "or flash with --source" % (version, b_version, local_version[0], local_version[1]))
    for arch in native_archs:
        if arch != b_arch or b_sub != local_version[1]:
            return ("a module has %s native code (mpy v%d.%d) but the board runs %s code "
                    "(mpy v%d.%d): flash with --source"
                    % (arch, local_version[0], local_version[1], b_arch, b_version, b_sub))
    return None


def unsupported(version, shown=None):
    """Why MicroPython `version` (a tuple, None when unknown) is not one the box supports, or
    None when it is."""
    if version is not None and tuple(version[:3]) >= SUPPORTED:
        return None
    what = ("MicroPython %s" % (shown or ".".join(str(v) for v in version[:3])) if version
            else "a MicroPython that states no version")
    return ("%s, and the box needs v%s or later: download it for your board from %s (Pico) "
            "or %s (Pico W)" % (what, SUPPORTED_TEXT, DOWNLOAD["pico"], DOWNLOAD["picow"]))


def describe(info, port):
    """One line: the board's MicroPython, platform, .mpy format and port."""
    version = ".".join(str(v) for v in info["version"][:3])
    if info["mpy"] is None:
        fmt = "no .mpy support"
    else:
        v, sub, arch = board_mpy(info["mpy"])
        fmt = "mpy v%d.%d, %s" % (v, sub, arch or "no native arch")
    return "board: MicroPython %s on %s (%s) at %s" % (version, info["platform"], fmt, port)


def shown(name):
    """A name as it can be printed on one line: control characters escaped."""
    if any(ord(ch) < 32 or 0x7F <= ord(ch) < 0xA0 for ch in name):
        return repr(name)[1:-1]
    return name

"""`matchbox uf2 --micropython FILE.uf2`: one file that makes many boxes (an event's twenty
Picos): the MicroPython the maker downloaded, with the box on its filesystem.

The box (main.py, the modules compiled as `matchbox flash` compiles them, the pin map) goes in
a littlefs image placed where that firmware keeps its filesystem, read from the firmware itself
(host_tools.device.image). Dragging the file onto a Pico replaces its whole filesystem, games
included: the command says so, and that `matchbox flash` is the update that keeps them. The
file is written whole (host_tools.files.write_whole), an existing one is replaced only with
--force, and never the MicroPython UF2 it was made from. docs/flashing.md says what to do
with it.
"""
import hashlib
import os

from host_tools.device import board_info
from host_tools.errors import MatchboxError, check_folder, read_bounded
from host_tools.files import check_output, write_whole

MAX_UF2 = 8 * 1024 * 1024   # a whole 2 MB flash is 4 MB of UF2 blocks: far more is not one


def add_arguments(parser):
    parser.add_argument("--micropython", metavar="FILE.uf2",
                        help="the MicroPython UF2 for your board, v%s or later, from %s or %s"
                             % (board_info.SUPPORTED_TEXT, board_info.DOWNLOAD["pico"],
                                board_info.DOWNLOAD["picow"]))
    parser.add_argument("-o", "--output", metavar="OUT.uf2",
                        help="where to write it (default: matchbox-FILE.uf2 in this folder)")
    parser.add_argument("--force", action="store_true", help="replace OUT.uf2 if it exists")


def run(args):
    if not args.micropython:
        raise MatchboxError("--micropython", "give the MicroPython UF2 for your board (v%s or "
                            "later): download it from %s (Pico) or %s (Pico W)"
                            % (board_info.SUPPORTED_TEXT, board_info.DOWNLOAD["pico"],
                               board_info.DOWNLOAD["picow"]))
    source = args.micropython
    out = args.output or "matchbox-" + os.path.basename(source.rstrip("/\\") or "micropython.uf2")
    check_output(out, [source])
    if os.path.lexists(out) and not args.force:
        raise MatchboxError("cannot write %s" % out, "it exists (--force replaces it)")
    check_folder(os.path.dirname(os.path.abspath(out)), "folder for the image")
    data = read_bounded(source, MAX_UF2, "MicroPython UF2")

    from host_tools.device import build, image
    try:
        version = image.micropython_uf2(data, source)[1]["version"]
        reason = board_info.unsupported(image.version_tuple(version), version)
        if reason:
            raise MatchboxError("--micropython", "%s is %s" % (source, reason))
        made, facts = image.with_box(data, source)
    except image.ImageError as exc:
        raise MatchboxError("--micropython", str(exc)) from None
    except build.BuildError as exc:
        raise MatchboxError("cannot make the image", "the firmware does not compile: %s"
                            % build.format_error(exc.errors[0]), 1) from None
    write_whole(out, made, inputs=[source])
    print("wrote %s: %d bytes, sha256 %s" % (out, len(made), hashlib.sha256(made).hexdigest()))
    print("MicroPython %s%s with the box on its filesystem: %d files in littlefs at 0x%08x "
          "(%d KB)" % (facts["version"] or "(version not stated)",
                       " for %s" % facts["board"] if facts["board"] else "", facts["files"],
                       facts["fs_address"], facts["fs_size"] // 1024))
    print("hold BOOTSEL while plugging the Pico in, then copy %s onto the RPI-RP2 drive. It "
          "REPLACES every file on the Pico, games included: to update a box that has games, "
          "use `matchbox flash`, which keeps them." % os.path.basename(out))
    return 0

"""`matchbox uf2`: write the box's firmware image, the one file a maker drags onto a Pico.

From an installed package it copies the image the package ships (made by `make uf2` when the
package was built); in a checkout it builds it from the code as it stands, as `make uf2`
does. Either way the file is written whole (a temporary file renamed into place), and an
existing file is replaced only with --force. `--board picow` writes the Pico W's image
instead of the Pico's (`pico`, the default). docs/flashing.md says what to do with it.
"""
import hashlib
import os

from host_tools import resources
from host_tools.errors import MatchboxError, check_folder


def add_arguments(parser):
    parser.add_argument("--board", choices=sorted(resources.IMAGE_NAMES), default="pico",
                        help="the Pico (pico, the default) or the Pico W (picow)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write it (default: %s or %s in this folder)"
                             % (resources.IMAGE_NAMES["pico"], resources.IMAGE_NAMES["picow"]))
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")


def image_bytes(board="pico"):
    """The board's image: the package's own, or in a checkout made now."""
    shipped = resources.firmware_image(board)
    if resources.INSTALLED:
        if not shipped:
            raise MatchboxError("no firmware image for the %s" % board, "this package was "
                                "built without one (`make uf2` before building it)")
        with open(shipped, "rb") as f:
            return f.read()
    from host_tools.device import build, image
    try:
        return image.make_uf2(board=board)[0]
    except image.ImageError as exc:
        raise MatchboxError("cannot make the image", str(exc)) from None
    except build.BuildError as exc:
        raise MatchboxError("cannot make the image", "the firmware does not compile: %s"
                            % build.format_error(exc.errors[0]), 1) from None


def run(args):
    out = args.output or resources.IMAGE_NAMES[args.board]
    if os.path.isdir(out):
        raise MatchboxError("cannot write %s" % out, "it is a directory")
    if os.path.lexists(out) and not args.force:
        raise MatchboxError("cannot write %s" % out, "it exists (--force replaces it)")
    check_folder(os.path.dirname(os.path.abspath(out)), "folder for the image")
    data = image_bytes(args.board)
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out)
    print("wrote %s: %d bytes, sha256 %s" % (out, len(data), hashlib.sha256(data).hexdigest()))
    print("hold BOOTSEL while plugging the %s in, then copy the file onto the RPI-RP2 drive"
          % ("Pico W" if args.board == "picow" else "Pico"))
    return 0

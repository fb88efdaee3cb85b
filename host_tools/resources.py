"""Where the package's data is: the one module that knows, for every command.

In an installed package (a wheel, `pip install .`, `pipx install .`) the build copies the
repository's top folders into the package (setup.py, `data/` below), and everything is found
through importlib.resources. In a checkout (editable install, tests) the same names point at
the repository's own folders, so both read the same files:

| name | installed package | checkout |
| --- | --- | --- |
| FIRMWARE | host_tools/data/firmware | firmware/ |
| HARDWARE | host_tools/data/hardware | hardware/ |
| PINMAP, load_pinmap() | host_tools/data/hardware/pinmap.json | hardware/pinmap.json |
| WASM | None (host_tools.wasm_cache gets it) | host_tools/webpage/node_modules/@micropython/... |
| VIRTUAL_MPY, WEBPAGE, RP2040JS | host_tools/virtual/mpy, webpage, virtual/rp2040js (both) |

No command writes into any of these: an installed package may be read-only.
"""
import importlib
import importlib.resources
import json
import os
import re
import sys

_PACKAGE = os.fspath(importlib.resources.files("host_tools"))
_DATA = os.path.join(_PACKAGE, "data")

# True in a built package; False in a checkout, where the data are the repository's folders.
INSTALLED = os.path.isdir(_DATA)
# The repository's root in a checkout, else None (for tools that only make sense there).
CHECKOUT = None if INSTALLED else os.path.dirname(_PACKAGE)

# Names inside data/ of the built package (setup.py writes them; the sdist carries the rest).
DATA_FIRMWARE = "firmware"
DATA_HARDWARE = "hardware"
# The npm package of the MicroPython WebAssembly build, in the checkout's node_modules (the
# package does not carry it: host_tools.wasm_cache gets it by name at first use).
WASM_PACKAGE = ("@micropython", "micropython-webassembly-pyscript")
WASM_FILES = ("micropython.mjs", "micropython.wasm")


def _pick(installed, *checkout):
    return os.path.join(_DATA, installed) if INSTALLED else os.path.join(CHECKOUT, *checkout)


FIRMWARE = _pick(DATA_FIRMWARE, "firmware")   # main.py, lib/box, lib/tycoon, the pin map
HARDWARE = _pick(DATA_HARDWARE, "hardware")   # the pin map, wiring.svg
# The pin and address map: the one name of its file, on the host and on a board's root.
PINMAP_NAME = "pinmap.json"
PINMAP = os.path.join(HARDWARE, PINMAP_NAME)   # firmware/pinmap.json is this file
PINMAP_SOURCE = "hardware/" + PINMAP_NAME      # how messages name it
BOARD_PINMAP = "/" + PINMAP_NAME               # on a board: on the littlefs, the box's own
FIRMWARE_LIB = os.path.join(FIRMWARE, "lib")
VERSION_FILE = os.path.join(FIRMWARE_LIB, "box", "version.py")
WASM = None if INSTALLED else os.path.join(CHECKOUT, "host_tools", "webpage", "node_modules",
                                          *WASM_PACKAGE)
VIRTUAL_MPY = os.path.join(_PACKAGE, "virtual", "mpy")   # the unix port's side of the VBox
WEBPAGE = os.path.join(_PACKAGE, "webpage")               # index.html, page.css, page.js, board.py
RP2040JS = os.path.join(_PACKAGE, "virtual", "rp2040js")  # the emulated Pico's Node part


def load_pinmap(path=PINMAP):
    """The pin map as a dict (hardware/pinmap.json unless path names another): every board,
    command and page of the host reads it through here."""
    with open(path) as f:
        return json.load(f)


def firmware_module(name):
    """A module of the firmware's lib (`box.app`, say) imported on CPython, for a table the
    host shows as the box does: the firmware's constants are imported, never parsed."""
    if FIRMWARE_LIB not in sys.path:
        sys.path.append(FIRMWARE_LIB)
    return importlib.import_module(name)


# The name the web site and the hall serve that font under (their pages' @font-face).
JAPANESE_FONT_NAME = "ipaexg.ttf"


def japanese_font():
    """The file of IPAexGothic, the font the Japanese table card and pages are set in (the
    PyPI package matplotlib-fontja, a dependency: found by its metadata, not imported, since
    importing it changes matplotlib's default font); None when it is not installed."""
    import importlib.metadata
    try:
        dist = importlib.metadata.distribution("matplotlib-fontja")
    except importlib.metadata.PackageNotFoundError:
        return None
    path = str(dist.locate_file("matplotlib_fontja/fonts/ipaexg.ttf"))
    return path if os.path.isfile(path) else None


def package_file(*parts):
    """A file of the host_tools package itself (a module another runtime loads by path)."""
    return os.path.join(_PACKAGE, *parts)


def read_version(path=VERSION_FILE):
    """VERSION of the firmware's box/version.py: the one version of the firmware and package."""
    with open(path, encoding="utf-8") as f:
        m = re.search(r'^VERSION\s*=\s*"([^"]+)"', f.read(), re.M)
    if not m:
        raise ValueError("no VERSION = \"...\" line in %s" % path)
    return m.group(1)

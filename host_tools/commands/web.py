"""`matchbox web`: the box in a web browser, the real firmware under MicroPython WebAssembly.

Builds a static site (plain files any static host can serve) into a folder, serves that folder
on localhost and opens it. The site holds the firmware's own `.py` files, the page's board
(host_tools/webpage/board.py with the virtual parts it reuses), the MicroPython WebAssembly
build (not in the package: in a checkout host_tools/webpage/node_modules, which `make
web-deps` fills, else got by name from npm into the user's cache at first use:
host_tools.wasm_cache), and the page (index.html, page.css, page.js). The displays' markup is
written here by host_tools.virtual.display_svg, the renderer of the docs' pictures. See
docs/web.md.

The server (host_tools.web_server, which the hall's page uses too) holds up to idle and slow
clients and never lists folders; its temporary folder goes on Ctrl-C and SIGTERM.
"""
import functools
import json
import os
import shutil
import tempfile
import webbrowser

from host_tools import files, resources, wasm_cache, words
from host_tools.errors import MatchboxError, check_folder, int_in
from host_tools.web_server import Handler, Server
from host_tools.virtual import display_svg
from host_tools.virtual.board_link import BUTTONS
from host_tools.virtual.display_text import face_text

PAGE = resources.WEBPAGE
WASM = resources.WASM
WASM_FILES = resources.WASM_FILES
PAGE_FILES = ("index.html", "page.css", "page.js")
# Python files of the page's board: (source in the host_tools package, name in the site's py/page/)
BOARD_FILES = (
    ("webpage/board.py", "board.py"),
    ("virtual/mpy/parts.py", "parts.py"),
    ("virtual/ht16k33.py", "ht16k33.py"),
    ("reports/replay_portable.py", "replay_portable.py"),
    ("reports/state_log.py", "state_log.py"),
)
JAPANESE_FONT = resources.JAPANESE_FONT_NAME   # IPAexGothic, in the site under this name
KEYBOARD = {"AS": "s", "PLAY": "Space", "PASS": "p", "DEL": "Backspace", "UNDO": "u",
            "MENU": "m, M held"}


class WebError(MatchboxError):
    """The site cannot be built or served; the message says why and what to do."""


def add_arguments(parser):
    parser.add_argument("--port", type=int_in(0, 65535), default=8765,
                        help="port on localhost to serve on (default 8765; 0 picks a free one)")
    parser.add_argument("--no-open", action="store_true", help="serve, but do not open a browser")
    parser.add_argument("--build-only", metavar="DIR",
                        help="write the site into DIR (created if missing) and exit, no server")


def displays_markup(pinmap):
    """One SVG per display, all segments dark, each part with an id (display_svg's ids)."""
    out = []
    for i, d in enumerate(pinmap["displays"]):
        label = "%d %s" % (i + 1, d["role"].split(":")[0])
        svg = display_svg.picture([((0, 0, 0, 0), False, True)], [label], ident=["d%d" % i])
        out.append(svg.replace("<svg ", '<svg role="img" aria-label="display %d" ' % (i + 1), 1))
    return "\n".join(out)


def segment_style(count):
    """The CSS that lights a segment: display_svg's colours and each picture's own glow."""
    rules = ["svg .on { fill: %s; }" % display_svg.LIT,
             "svg .dark polygon, svg .dark circle { fill: %s; }" % display_svg.OFF]
    rules += ["#d%d .on { filter: url(#d%d-glow); }" % (i, i) for i in range(count)]
    return "\n".join(rules)


def _key(name, extra=""):
    """A key's button, labelled as the displays show the face (b, d) or by the button's name."""
    hint = KEYBOARD.get(name, name.lower() if len(name) == 1 else "")
    label = face_text(name) if extra == "" else name
    return ('<button type="button" class="key%s" data-key="%s" title="%s (keyboard: %s)">%s</button>'
            % (extra, name, label, hint, label))


def setup_items():
    """The setup menu's items as a new box shows them, each with a place for its meaning
    (page.js sets it from host_tools.words' setup_items in the reader's language)."""
    return "".join('<li data-item="%s"><code>%s</code> <span></span></li>'
                   % (item, words.SETUP_SHOWN[item]) for item in words.setup_items())


def page_html(pinmap):
    with open(os.path.join(PAGE, "index.html")) as f:
        html = f.read()
    keypad = "".join(_key(k) for row in pinmap["keypad"]["legend"] for k in row.upper())
    buttons = "".join(_key(b, " button" if len(b) > 1 else "") for b in BUTTONS)
    return (html.replace("{{displays}}", displays_markup(pinmap))
            .replace("{{segment_style}}", segment_style(len(pinmap["displays"])))
            .replace("{{keypad}}", keypad).replace("{{buttons}}", buttons)
            .replace("{{setup_items}}", setup_items())
            .replace("{{words}}", words.page_script(("web_", "log_"),
                                                    ("display_names", "setup", "setup_items"))))


def _copy(src, dest):
    with open(src, "rb") as f:
        files.write_whole(dest, f.read())


def build(dest):
    """Write the site into dest (getting the WebAssembly build first when it is not here);
    returns the list of files written (relative paths)."""
    wasm = wasm_cache.folder(WASM)
    pinmap = resources.load_pinmap()
    os.makedirs(dest, exist_ok=True)
    written = []
    py = []
    lib = resources.FIRMWARE_LIB
    for package in sorted(os.listdir(lib)):
        folder = os.path.join(lib, package)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                py.append((os.path.join(folder, name), "py/lib/%s/%s" % (package, name)))
    for src, name in BOARD_FILES:
        py.append((resources.package_file(*src.split("/")), "py/page/" + name))
    py.append((resources.PINMAP, "py/flash/" + resources.PINMAP_NAME))
    for src, rel in py:
        _copy(src, os.path.join(dest, rel))
    written += [rel for _, rel in py]
    files.write_whole(os.path.join(dest, "files.json"),
                      json.dumps([rel for _, rel in py], indent=0))
    written.append("files.json")
    for name in WASM_FILES:
        _copy(os.path.join(wasm, name), os.path.join(dest, name))
        written.append(name)
    for name in PAGE_FILES[1:]:
        _copy(os.path.join(PAGE, name), os.path.join(dest, name))
        written.append(name)
    font = resources.japanese_font()
    if font:   # for the Japanese labels where the system has no Japanese font (page.css)
        _copy(font, os.path.join(dest, JAPANESE_FONT))
        written.append(JAPANESE_FONT)
    files.write_whole(os.path.join(dest, "index.html"), page_html(pinmap))
    written.append("index.html")
    return written


def server(folder, port=0):
    """An HTTP server of `folder` on 127.0.0.1 (port 0: a free one); serve_forever() to run."""
    handler = functools.partial(Handler, directory=folder)
    try:
        return Server(("127.0.0.1", port), handler)
    except (OSError, OverflowError) as exc:
        raise WebError("cannot serve on port %d: %s (try --port)"
                       % (port, getattr(exc, "strerror", None) or exc))


def run(args):
    if args.build_only:
        check_folder(args.build_only, "folder for the site")
        try:
            written = build(args.build_only)
        except OSError as exc:
            raise MatchboxError("cannot write the site in %s" % args.build_only,
                                "%s%s" % (exc.strerror or exc,
                                          " (%s)" % exc.filename if exc.filename else "")) from None
        print("wrote %d files to %s" % (len(written), args.build_only))
        return 0
    folder = tempfile.mkdtemp(prefix="matchbox-web-")
    try:
        build(folder)
        httpd = server(folder, args.port)
        try:
            url = "http://127.0.0.1:%d/" % httpd.server_address[1]
            args.serving = True    # Ctrl-C, the way to stop it, is said `stopped` (cli)
            print("the box is at %s (Ctrl-C stops the server)" % url, flush=True)
            if not args.no_open:
                webbrowser.open(url)
            httpd.serve_forever()
        finally:
            httpd.server_close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0

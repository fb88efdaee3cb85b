"""`matchbox web`: the box in a web browser, the real firmware under MicroPython WebAssembly.

Builds a static site (plain files any static host can serve) into a folder, serves that folder
on localhost and opens it. The site holds the firmware's own `.py` files, the page's board
(host_tools/webpage/board.py with the virtual parts it reuses), the MicroPython WebAssembly
build (shipped in the package; in a checkout host_tools/webpage/node_modules, which
`npm ci --prefix host_tools/webpage` fills: host_tools.resources.WASM), and the page
(index.html, page.css, page.js). The displays' markup is written here by
host_tools.virtual.display_svg, the renderer of the docs' pictures. See docs/web.md.

The server holds up to idle and slow clients: a connection that has not sent its request
within IDLE_S seconds is closed, at most MAX_CONNECTIONS are open at once (the longest idle
one is closed to make room for a new one), folders are never listed, and its temporary
folder goes on Ctrl-C and SIGTERM.
"""
import functools
import http.server
import json
import os
import shutil
import socket
import tempfile
import threading
import webbrowser

from host_tools import resources
from host_tools.errors import MatchboxError, check_folder, int_in
from host_tools.virtual import display_svg
from host_tools.virtual.board_link import BUTTONS

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
KEYBOARD = {"AS": "s", "PLAY": "Space", "PASS": "p", "DEL": "Backspace", "UNDO": "u",
            "MENU": "m, M held"}
TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".py": "text/plain; charset=utf-8", ".json": "application/json", ".css": "text/css",
         ".html": "text/html; charset=utf-8", ".svg": "image/svg+xml"}


IDLE_S = 10            # seconds a connection may stay silent before its request line
MAX_CONNECTIONS = 64   # open connections at most (far below the usual 1024 open files)


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
    hint = KEYBOARD.get(name, name.lower() if len(name) == 1 else "")
    return ('<button type="button" class="key%s" data-key="%s" title="%s (keyboard: %s)">%s</button>'
            % (extra, name, name, hint, name))


def page_html(pinmap):
    with open(os.path.join(PAGE, "index.html")) as f:
        html = f.read()
    keypad = "".join(_key(k) for row in pinmap["keypad"]["legend"] for k in row.upper())
    buttons = "".join(_key(b, " button" if len(b) > 1 else "") for b in BUTTONS)
    return (html.replace("{{displays}}", displays_markup(pinmap))
            .replace("{{segment_style}}", segment_style(len(pinmap["displays"])))
            .replace("{{keypad}}", keypad).replace("{{buttons}}", buttons))


def _copy(src, dest):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(src, dest)


def build(dest):
    """Write the site into dest; returns the list of files written (relative paths)."""
    missing = [n for n in WASM_FILES if not os.path.isfile(os.path.join(WASM, n))]
    if missing:
        raise WebError("the MicroPython WebAssembly build is not installed (%s missing): "
                       "run `npm ci --prefix host_tools/webpage` (or `make web-deps`)"
                       % ", ".join(missing))
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
    with open(os.path.join(dest, "files.json"), "w") as f:
        json.dump([rel for _, rel in py], f, indent=0)
    written.append("files.json")
    for name in WASM_FILES:
        _copy(os.path.join(WASM, name), os.path.join(dest, name))
        written.append(name)
    for name in PAGE_FILES[1:]:
        _copy(os.path.join(PAGE, name), os.path.join(dest, name))
        written.append(name)
    with open(os.path.join(dest, "index.html"), "w") as f:
        f.write(page_html(pinmap))
    written.append("index.html")
    return written


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES)
    timeout = IDLE_S   # on the socket: a silent client is dropped, its thread ends

    def log_message(self, format, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        http.server.SimpleHTTPRequestHandler.end_headers(self)

    def list_directory(self, path):
        self.send_error(404, "Not found")
        return None

    def handle_one_request(self):
        # Busy from the first byte of a request until its answer is sent; idle otherwise.
        self.server.idle(self.connection, True)
        try:
            self.rfile.peek(1)
        except (OSError, ValueError):
            self.close_connection = True
            return
        self.server.idle(self.connection, False)
        http.server.SimpleHTTPRequestHandler.handle_one_request(self)


class Server(http.server.ThreadingHTTPServer):
    """A ThreadingHTTPServer with a bound on open connections: at the bound, the connection
    idle the longest (accepted, no request yet) is closed to let a new one in."""
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, address, handler, max_connections=MAX_CONNECTIONS):
        self.max_connections = max_connections
        self._open = {}    # socket -> idle (no request under way), in the order accepted
        self._lock = threading.Lock()
        http.server.ThreadingHTTPServer.__init__(self, address, handler)

    def idle(self, conn, idle):
        with self._lock:
            if conn in self._open:
                self._open[conn] = idle

    def open_connections(self):
        with self._lock:
            return len(self._open)

    def process_request(self, request, client_address):
        with self._lock:
            while len(self._open) >= self.max_connections:
                oldest = next((c for c, idle in self._open.items() if idle), None)
                if oldest is None:
                    break
                del self._open[oldest]
                try:
                    oldest.shutdown(socket.SHUT_RDWR)   # its thread reads EOF and ends
                except OSError:
                    pass
            if len(self._open) >= self.max_connections:
                refuse = True
            else:
                refuse = False
                self._open[request] = True
        if refuse:   # every open connection is busy sending: this one must wait its turn
            self.shutdown_request(request)
            return
        http.server.ThreadingHTTPServer.process_request(self, request, client_address)

    def shutdown_request(self, request):
        with self._lock:
            self._open.pop(request, None)
        http.server.ThreadingHTTPServer.shutdown_request(self, request)


def server(folder, port=0):
    """An HTTP server of `folder` on 127.0.0.1 (port 0: a free one); serve_forever() to run."""
    handler = functools.partial(_Handler, directory=folder)
    try:
        return Server(("127.0.0.1", port), handler)
    except (OSError, OverflowError) as exc:
        raise WebError("cannot serve on port %d: %s (try --port)"
                       % (port, getattr(exc, "strerror", None) or exc))


def run(args):
    if args.build_only:
        check_folder(args.build_only, "folder for the site")
        try:
            files = build(args.build_only)
        except OSError as exc:
            raise MatchboxError("cannot write the site in %s" % args.build_only,
                                "%s%s" % (exc.strerror or exc,
                                          " (%s)" % exc.filename if exc.filename else "")) from None
        print("wrote %d files to %s" % (len(files), args.build_only))
        return 0
    folder = tempfile.mkdtemp(prefix="matchbox-web-")
    try:
        build(folder)
        httpd = server(folder, args.port)
        try:
            url = "http://127.0.0.1:%d/" % httpd.server_address[1]
            print("the box is at %s (Ctrl-C stops the server)" % url, flush=True)
            if not args.no_open:
                webbrowser.open(url)
            httpd.serve_forever()
        finally:
            httpd.server_close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0

"""The hall's HTTP side: GET only, no input, 127.0.0.1 unless told otherwise.

    /                 the live page (page.html): every table, updated by Server-Sent Events
    /events           the stream the page reads: `data: {"tables": [...], "standings": {...}}`
                      at once and after every line stored (a comment every 15 s keeps it open)
    /tables.json      [{"box", "game", "seq", "state" (as `matchbox replay --json`), "error",
                      "last" (the last actions)}]
    /tables/BOX.txt   the record of the box's current game, as the box wrote it (what
                      `matchbox replay` reads)
    /tables/BOX.svg   its four displays as the box shows them (host_tools.hall.displays)
    /standings.json   places and points across the finished games (host_tools.hall.standings)

The server is host_tools.commands.web's: at most MAX_CONNECTIONS open, a connection silent for IDLE_S
seconds closed; at most MAX_STREAMS pages follow the stream at once (more get 503). Other
methods get 501 from the standard library's handler.
"""
import importlib.resources
import json
import threading

from host_tools.commands import web
from host_tools.hall import standings
from host_tools.hall.accounts import NAME

MAX_STREAMS = 32
HEARTBEAT_S = 15


class Site:
    """What the handler reads: the tables (records.Tables) and the points setting."""

    def __init__(self, tables, points=None):
        self.tables = tables
        self.points = points
        self.reader = standings.Reader()
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)
        self.stopping = threading.Event()
        self._read_lock = threading.Lock()
        self._views = {}   # box -> (its table's version, its view)

    def views(self):
        """Every table's view (standings.table_view), each made again only when its table
        has stored a line since (its version): an event of the page reads the tables that
        changed, not all of them."""
        with self.tables.lock:
            tables = [(t, t.version) for t in self.tables.tables.values()]
        with self._read_lock:
            out = []
            for table, version in tables:
                hit = self._views.get(table.box)
                if hit is None or hit[0] != version:
                    hit = self._views[table.box] = (version, standings.table_view(self.reader,
                                                                                  table))
                out.append(hit[1])
            return out

    def standings(self):
        with self.tables.lock:
            tables = list(self.tables.tables.values())
        with self._read_lock:
            return standings.standings(self.reader, tables, self.points)

    def record(self, box):
        with self.tables.lock:
            table = self.tables.tables.get(box)
            if table is None or table.latest is None:
                return None
            path = table.path()
        with open(path, "rb") as f:
            return f.read()

    def displays(self, box):
        from host_tools.hall import displays
        with self.tables.lock:
            table = self.tables.tables.get(box)
            if table is None:
                return None
            path = table.path() if table.latest else None
        with self._read_lock:
            game = self.reader.game(path)[0] if path else None
            return displays.picture(game).encode()


def page():
    return importlib.resources.files("host_tools.hall").joinpath("page.html").read_bytes()


class Handler(web._Handler):
    site = None   # set by server()

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/":
            return self._send(page(), "text/html; charset=utf-8")
        if path == "/tables.json":
            return self._json(self.site.views())
        if path == "/standings.json":
            return self._json(self.site.standings())
        if path == "/events":
            return self._events()
        if path.startswith("/tables/") and path[-4:] in (".txt", ".svg"):
            box = path[len("/tables/"):-4]
            if NAME.match(box) and path.endswith(".txt"):
                data = self.site.record(box)
                if data is not None:
                    return self._send(data, "text/plain; charset=utf-8")
            elif NAME.match(box):
                data = self.site.displays(box)
                if data is not None:
                    return self._send(data, "image/svg+xml")
        self.send_error(404, "Not found")

    def do_HEAD(self):
        self.send_error(405, "Method not allowed")

    def _send(self, data, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _json(self, value):
        self._send(json.dumps(value).encode(), "application/json")

    def _events(self):
        site = self.site
        if not site.streams.acquire(blocking=False):
            return self.send_error(503, "Too many pages open")
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.close_connection = True
            seen = None
            while not site.stopping.is_set():
                version = site.tables.version()
                if version != seen:
                    seen = version
                    data = json.dumps({"tables": site.views(), "standings": site.standings()})
                    self.wfile.write(b"data: " + data.encode() + b"\n\n")
                else:
                    self.wfile.write(b": still here\n\n")
                self.wfile.flush()
                with site.tables.lock:
                    if site.tables.version() == seen:
                        site.tables.lock.wait(HEARTBEAT_S)
        except OSError:   # the page went away, or stopped reading
            pass
        finally:
            site.streams.release()


def server(site, host="127.0.0.1", port=0):
    """The hall's HTTP server (web.Server) on host:port; serve_forever() to run."""
    handler = type("HallHandler", (Handler,), {"site": site})
    return web.Server((host, port), handler)

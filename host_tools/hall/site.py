"""The hall's HTTP side: GET only, no input, 127.0.0.1 unless told otherwise.

    /                 the live page (page.html): every table, updated by Server-Sent Events
    /events           the stream the page reads: `data: {"full": true, "tables": [...],
                      "standings": {...}}` at once (every table), then at most every
                      EVENT_GAP_S `{"full": false, "tables": [...]}` with only the tables that
                      changed since, and "standings" when they changed (a comment every 15 s
                      keeps it open)
    /tables.json      [{"box", "game", "seq", "state" (as `matchbox replay --json`), "error",
                      "last" (the last actions)}]
    /tables/BOX.txt   the record of the box's current game, as the box wrote it (what
                      `matchbox replay` reads; empty while its copy is set aside and the game
                      not yet taken again)
    /tables/BOX.svg   its four displays as the box shows them (host_tools.hall.displays)
    /standings.json   places and points across the finished games (host_tools.hall.standings)
    /event.json       the event's round, each table's players by name and record, and the
                      standings by round (host_tools.hall.rounds.view; null without an event)
    /ipaexg.ttf       IPAexGothic (host_tools.resources.japanese_font()), which the page's
                      Japanese words fall back to where the system has no Japanese font
    /audience.json    where the page follows the tables (host_tools.hall.audience): the
                      audience broker's WebSocket port and path, the spectator account, the
                      topics; `null` when the hall has no audience broker (the page then
                      reads /events)
    /mqtt.min.js      the MQTT client the page follows them with (npm's mqtt, its browser
                      build, got by name: host_tools.wasm_cache.HALL_MQTT); 404 without it

Each table's view (in /tables.json, /events and the audience's messages) carries its four
displays as the box shows them: `displays`, [m0, m1, m2, m3, colon, lit] a display (the digit
masks, bit 0 segment a ... bit 7 the point; host_tools.hall.displays), which the page draws
into the pictures of host_tools.virtual.display_svg, as the web page does.

The server is host_tools.web_server's (`matchbox web`'s): a request whole within REQUEST_S
seconds and MAX_HEAD bytes, at most MAX_CONNECTIONS open (MAX_PER_CLIENT from one address), a
path that is not one 400; at most MAX_STREAMS pages follow the stream at once (more get 503),
and a stream whose page went away gives its place back within CLOSED_S. Other methods get 501
from the standard library's handler.
"""
import importlib.resources
import json
import os
import select
import socket
import threading
import time

from host_tools import resources, web_server, words
from host_tools.hall import standings
from host_tools.hall.accounts import NAME

MAX_STREAMS = 32
HEARTBEAT_S = 15
CLOSED_S = 0.5      # how soon a stream notices its page went away
CACHE = "public, max-age=86400"   # the MQTT client (pinned): a browser fetches it once a day
EVENT_GAP_S = 0.1   # at most 10 events a second a page, each with every table changed since
FONT = resources.JAPANESE_FONT_NAME   # the Japanese font's path (page.html's @font-face)


class Site:
    """What the handler reads: the tables (records.Tables) and the points setting."""

    def __init__(self, tables, points=None, hall=None, audience=None, mqtt_js=None):
        self.tables = tables
        self.points = points
        self.hall = hall   # the hall's folder: its event (event_now)
        self._event = None   # ((the tables' version, the event files' stamp), its JSON)
        self.audience = audience   # what /audience.json says (audience.page_settings), or None
        self.mqtt_js = mqtt_js     # the path of mqtt.min.js, or None
        self.reader = standings.Reader()
        self.streams = threading.BoundedSemaphore(MAX_STREAMS)
        self.stopping = threading.Event()
        self._read_lock = threading.Lock()
        self._views = {}   # box -> (its table's version, its view, the view's JSON)
        self._standings = None   # (the tables' version, the games finished, the standings, JSON)

    def _view(self, table, version):
        """(version, view, its JSON) of a table, made again only when its version moved on
        (under _read_lock)."""
        hit = self._views.get(table.box)
        if hit is None or hit[0] != version:
            from host_tools.hall import displays
            view = standings.table_view(self.reader, table)
            game = self.reader.game(table.path())[0] if view["state"] is not None else None
            view["displays"] = displays.compact(game)
            hit = self._views[table.box] = (version, view, json.dumps(view))
        return hit

    def changed(self, seen):
        """The (version, view, JSON) of every table whose version is not the one in `seen`
        (box -> version, brought up to date): all of them for an empty `seen`, then only those
        that stored a line (or had one acknowledged) since. A view is made again only when its
        table changed, once for every page."""
        with self.tables.lock:
            tables = [(t, t.version) for t in self.tables.tables.values()
                      if seen.get(t.box) != t.version]
        with self._read_lock:
            out = []
            for table, version in tables:
                out.append(self._view(table, version))
                seen[table.box] = version
            return out

    def views(self):
        """Every table's view (standings.table_view)."""
        return [hit[1] for hit in self.changed({})]

    def standings(self):
        return self.standings_now()[0]

    def standings_now(self):
        """(the standings, their JSON), ranked again only when a game finished (or a finished
        game changed)."""
        version = self.tables.version()
        with self.tables.lock:
            tables = list(self.tables.tables.values())
        with self._read_lock:
            if self._standings is None or self._standings[0] != version:
                finished = standings.results(self.reader, tables)
                if self._standings is not None and self._standings[1] == finished:
                    self._standings = (version,) + self._standings[1:]
                else:
                    value = standings.ranked(finished, self.points)
                    self._standings = (version, finished, value, json.dumps(value))
            return self._standings[2:]

    def event_now(self):
        """The JSON of the event's view (host_tools.hall.rounds.view), made again only when a
        line was stored or an event file changed."""
        from host_tools.event import store
        from host_tools.hall import rounds
        if self.hall is None:
            return b"null"
        key = (self.tables.version(), store.stamp(self.hall))
        with self._read_lock:
            if self._event is None or self._event[0] != key:
                view = rounds.view(self.hall, self.reader)
                self._event = (key, json.dumps(view, ensure_ascii=False).encode())
            return self._event[1]

    def record(self, box):
        """The record of the box's current game; b"" while the hall has none of its lines (its
        copy set aside, the game being taken again from line 1)."""
        with self.tables.lock:
            table = self.tables.tables.get(box)
            if table is None or table.latest is None:
                return None
            path = table.path()
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return b""

    def displays(self, box):
        from host_tools.hall import displays
        with self.tables.lock:
            table = self.tables.tables.get(box)
            if table is None:
                return None
            path = table.path() if table.games.get(table.latest) else None
        with self._read_lock:
            game = self.reader.game(path)[0] if path else None
            return displays.picture(game).encode()


def page():
    """The live page, with its words in every language (host_tools.words: ?lang= or the
    browser's language picks one) and the picture of the four displays its cards light."""
    from host_tools.event import words as event_words
    from host_tools.hall import displays
    html = importlib.resources.files("host_tools.hall").joinpath("page.html").read_text("utf-8")
    html = html.replace("{{event_words}}", event_words.page_script())
    return html.replace("{{words}}", words.page_script("hall_")).replace(
        "{{displays}}", displays.template()).replace(
        "{{segments}}", displays.segment_style()).encode()


class Handler(web_server.Handler):
    site = None   # set by server()

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path == "/":
            return self._send(page(), "text/html; charset=utf-8")
        if path == "/tables.json":
            texts = [hit[2] for hit in self.site.changed({})]
            return self._send(("[%s]" % ", ".join(texts)).encode(), "application/json")
        if path == "/standings.json":
            return self._json(self.site.standings())
        if path == "/event.json":
            return self._send(self.site.event_now(), "application/json")
        if path == "/events":
            return self._events()
        if path == "/" + FONT:
            return self._font()
        if path == "/audience.json":
            return self._json(self.site.audience)
        if path == "/mqtt.min.js" and self.site.mqtt_js:
            with open(self.site.mqtt_js, "rb") as f:
                return self._send(f.read(), "text/javascript; charset=utf-8", CACHE)
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

    def _send(self, data, kind, cache=None):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        if cache:
            self.send_header("Cache-Control", cache)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _font(self):
        """The Japanese font, streamed from the installed package (404 without it)."""
        font = resources.japanese_font()
        if font is None:
            return self.send_error(404, "Not found")
        with open(font, "rb") as f:
            self.send_response(200)
            self.send_header("Content-Type", "font/ttf")
            self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
            self.end_headers()
            self.copyfile(f, self.wfile)

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
            seen = {}       # box -> the version of the table this page has
            shown = None    # the standings it has (their JSON)
            while not site.stopping.is_set():
                began = time.monotonic()
                views = site.changed(seen)
                if views or shown is None:
                    texts = ['"full": %s' % ("false" if shown else "true"),
                             '"tables": [%s]' % ", ".join(hit[2] for hit in views)]
                    now = site.standings_now()[1]
                    if now != shown:
                        shown = now
                        texts.append('"standings": ' + now)
                    self.wfile.write(b"data: {" + ", ".join(texts).encode() + b"}\n\n")
                else:
                    self.wfile.write(b": still here\n\n")
                self.wfile.flush()
                # at most one event every EVENT_GAP_S: the lines stored meanwhile go together
                site.stopping.wait(max(0.0, began + EVENT_GAP_S - time.monotonic()))
                quiet = time.monotonic() + HEARTBEAT_S
                while not site.stopping.is_set() and not self._gone():
                    with site.tables.lock:
                        if site.tables.version() != sum(seen.values()):
                            break
                        site.tables.lock.wait(min(CLOSED_S, max(0.0, quiet - time.monotonic())))
                    if time.monotonic() >= quiet:
                        break
                else:
                    return
        except OSError:   # the page went away, or stopped reading
            pass
        finally:
            site.streams.release()

    def _gone(self):
        """Whether the page closed its side of the stream (it sends nothing after its request:
        a readable socket is its end, or bytes it should not send)."""
        poll = select.poll()
        poll.register(self.connection, select.POLLIN)
        try:
            if not poll.poll(0):
                return False
            return not self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            return True


def server(site, host="127.0.0.1", port=0, tls=None):
    """The hall's HTTP server (web_server.Server) on host:port, HTTPS only with `tls` (an
    ssl.SSLContext: host_tools.hall.certs.server_context); serve_forever() to run."""
    handler = type("HallHandler", (Handler,), {"site": site})
    return web_server.Server((host, port), handler, tls=tls)

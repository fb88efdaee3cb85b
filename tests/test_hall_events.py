"""The page's stream (/events): the first event has every table and the standings, the next
ones only the tables that changed since (the standings when they changed), at most one event
every site.EVENT_GAP_S with every line stored meanwhile; and the records' reader, which reads
a record that grew on from where it was, gives what a whole replay gives."""
import http.client
import json
import os
import threading
import time

import pytest

from hall_helpers import header_lines, journal
from host_tools.hall import displays, records, site, standings
from host_tools.reports.replay_portable import replay
from tycoon import writer

pytestmark = pytest.mark.timeout(60)
G1, G2 = "001-00000001", "002-00000002"


def view(table):
    """A table's view as the page gets it: standings.table_view, and its displays as the
    firmware's screens draw them for the record replayed from its first line."""
    out = standings.table_view(standings.Reader(), table)
    game = replay(table.path())[0] if out["state"] is not None else None
    out["displays"] = [list(masks) + [int(colon), int(lit)]
                       for masks, colon, lit in displays.panels_of(game)]
    return out


class Stream:
    """A client of /events, as the page: each event's data, parsed."""

    def __init__(self, port):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        self.conn.request("GET", "/events")
        self.response = self.conn.getresponse()
        assert self.response.status == 200

    def next(self):
        for raw in self.response:
            if raw.startswith(b"data: "):
                return json.loads(raw[6:])
        raise AssertionError("the stream ended")

    def close(self):
        self.response.close()
        self.conn.close()


@pytest.fixture
def hall(tmp_path):
    tables = records.Tables(str(tmp_path))
    the_site = site.Site(tables)
    httpd = site.server(the_site)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield tables, the_site, httpd.server_address[1]
    the_site.stopping.set()
    with tables.lock:
        tables.lock.notify_all()
    httpd.shutdown()
    httpd.server_close()


def test_a_late_page_gets_everything_then_only_what_changed(hall):
    tables, the_site, port = hall
    lines, game = journal(5)
    for box in ("t1", "t2", "t3"):
        for seq in range(1, 8):
            tables.store(box, G1, seq, lines[seq - 1])
    page = Stream(port)
    try:
        first = page.next()
        assert first["full"] is True
        assert [(t["box"], t["seq"]) for t in first["tables"]] == [("t1", 7), ("t2", 7), ("t3", 7)]
        assert first["standings"] == the_site.standings() and first["standings"]["games"] == 0
        tables.store("t2", G1, 8, lines[7])
        second = page.next()
        # only t2, as /tables.json has it now; the standings did not change: not sent again
        assert second["full"] is False and "standings" not in second
        assert second["tables"] == [view(tables.table("t2"))]
        assert second["tables"][0]["seq"] == 8
        for seq in range(8, len(lines) + 1):   # t1 plays its game to the end
            tables.store("t1", G1, seq, lines[seq - 1])
        seq, standings_now = 0, None
        while seq < len(lines):
            event = page.next()
            assert event["full"] is False and [t["box"] for t in event["tables"]] == ["t1"]
            seq = event["tables"][0]["seq"]
            standings_now = event.get("standings", standings_now)
        assert standings_now["games"] == 1 and standings_now == the_site.standings()
        assert event["tables"][0]["state"] == json.loads(writer.to_json(game))
        late = Stream(port)   # a page that connects (or reconnects) now: everything again
        try:
            everything = late.next()
            assert everything["full"] is True and everything["standings"] == standings_now
            assert [(t["box"], t["seq"]) for t in everything["tables"]] \
                == [("t1", len(lines)), ("t2", 8), ("t3", 7)]
        finally:
            late.close()
    finally:
        page.close()


def test_lines_stored_between_two_events_go_in_one(hall, monkeypatch):
    tables, the_site, port = hall
    monkeypatch.setattr(site, "EVENT_GAP_S", 1.0)
    lines = header_lines()
    tables.store("t1", G1, 1, lines[0])
    tables.store("t2", G1, 1, lines[0])
    page = Stream(port)
    try:
        assert page.next()["full"] is True
        began = time.monotonic()
        for seq in range(2, 7):               # five lines of t1, one of t2, within the gap
            tables.store("t1", G1, seq, lines[seq - 1])
        tables.store("t2", G1, 2, lines[1])
        event = page.next()
        assert time.monotonic() - began >= 0.8
        assert sorted((t["box"], t["seq"]) for t in event["tables"]) == [("t1", 6), ("t2", 2)]
    finally:
        page.close()


def test_the_reader_reads_on_as_a_whole_replay_reads(tmp_path):
    """Line after line appended (undos, the end of the game), then a record replaced by
    another file and one with a bad line: each time what replay() of the whole file says."""
    path = str(tmp_path / "t1.txt")
    lines, _ = journal(11, undo_every=3)
    reader = standings.Reader()
    resumed = []
    real = reader._read_on
    reader._read_on = lambda p, hit: resumed.append(real(p, hit)) or resumed[-1]

    def same():
        game, error = reader.game(path)
        whole, whole_error = replay(path)
        assert (writer.to_json(game), error) == (writer.to_json(whole), whole_error)
        with open(path) as f:
            actions = [l.split("#")[0].strip() for l in f.read().splitlines()]
        assert reader.last_actions(path) == [a for a in actions if a[0].isdigit()
                                             or a.split()[0] in ("undo",)][-6:]
    for line in lines:
        with open(path, "a") as f:
            f.write(line + "\n")
        same()
    assert resumed and all(resumed)             # read on, never replayed whole again
    assert len(resumed) == len(lines) - 7       # every line after the first action
    other, _ = journal(12)
    os.replace(_write(tmp_path / "new.txt", other[:9]), path)   # another file: replayed whole
    same()
    with open(path, "a") as f:                  # a line that is not the next: its problem
        f.write(other[20] + "\n")
    same()
    assert reader.game(path)[1] is not None
    with open(path, "a") as f:
        f.write(other[10] + "\n")
    same()


def _write(path, lines):
    with open(path, "w") as f:
        f.write("".join(l + "\n" for l in lines))
    return str(path)


def test_tables_json_is_every_view(hall):
    tables, the_site, port = hall
    lines, _ = journal(5)
    for seq in range(1, 10):
        tables.store("t1", G1, seq, lines[seq - 1])
    tables.store("t2", G2, 1, lines[0])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/tables.json")
    got = json.loads(conn.getresponse().read())
    conn.close()
    assert got == [view(t) for t in tables.tables.values()]


def test_a_page_that_closes_its_stream_gives_its_place_back_at_once(tmp_path, monkeypatch):
    """Issue 35's: a page that closed its stream held its place until the next write (up to
    HEARTBEAT_S). With every place taken and nothing stored, a page closing its stream frees
    its place within a second or two: the next page gets its stream, not 503."""
    monkeypatch.setattr(site, "MAX_STREAMS", 2)
    tables = records.Tables(str(tmp_path))
    the_site = site.Site(tables)
    httpd = site.server(the_site)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    port = httpd.server_address[1]
    try:
        pages = [Stream(port), Stream(port)]
        for page in pages:
            assert page.next()["full"] is True
        full = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        full.request("GET", "/events")
        assert full.getresponse().status == 503
        full.close()
        pages.pop().close()
        began = time.monotonic()
        while True:
            again = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            again.request("GET", "/events")
            answer = again.getresponse()
            if answer.status == 200:
                break
            again.close()
            assert time.monotonic() - began < 3 * site.CLOSED_S + 2, "the place was not freed"
            time.sleep(0.1)
        assert time.monotonic() - began < site.HEARTBEAT_S / 3
        again.close()
        pages[0].close()
    finally:
        the_site.stopping.set()
        with tables.lock:
            tables.lock.notify_all()
        httpd.shutdown()
        httpd.server_close()

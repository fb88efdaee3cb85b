"""The hall under load (the paths bench/bench_hall.py found slow): many lines stored with one
fsync, the commit log's (records.Tables.store_all), the keeper's writer storing what is queued together
and acknowledging each box once, and the page's views made again only for tables that changed.
"""
import collections
import os

import pytest

from hall_helpers import header_lines
from host_tools.hall import keeper, protocol, records, site, standings

pytestmark = pytest.mark.timeout(30)
G1, G2 = "001-00000001", "002-00000002"


@pytest.fixture
def synced(monkeypatch):
    """The paths records fsyncs, in order."""
    paths = []
    real = records._sync
    monkeypatch.setattr(records, "_sync", lambda path: (paths.append(path), real(path)))
    return paths


def test_store_all_fsyncs_the_commit_log_once(tmp_path, synced):
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    batch = [("t1", G1, seq, lines[seq - 1], None, None) for seq in range(1, 7)]
    batch += [("t2", G1, 1, lines[0], None, None), ("t2", G1, 3, lines[2], None, None),
              ("t1", G1, 6, lines[5], None, None)]
    results = tables.store_all(batch)
    assert results[:7] == [records.STORED] * 7
    assert isinstance(results[7], records.Refused) and "after a gap" in str(results[7])
    assert results[8] == records.DUPLICATE
    t1, t2 = tables.table("t1"), tables.table("t2")
    # one fsync, the commit log's (and the hall's folder once, where the log was made)
    log = os.path.join(str(tmp_path), records.LOG)
    assert synced == [str(tmp_path), log]
    assert t1.ack() == (G1, 6) and t2.ack() == (G1, 1)
    with open(t1.path()) as f:
        assert f.read().splitlines() == lines
    synced.clear()
    assert tables.store("t2", G1, 2, lines[1]) == records.STORED   # one line: as before
    assert synced == [log]
    with pytest.raises(records.Refused):
        tables.store("t2", G1, 4, lines[3])


class Message:
    def __init__(self, box, game, seq, line, prev=None):
        self.topic = protocol.journal_topic(box)
        self.payload = protocol.line_message(game, seq, line, prev)


class Client:
    def __init__(self):
        self.published = []

    def publish(self, topic, payload, qos=0, retain=False):
        self.published.append((topic, protocol.read_ack(payload)[1:], qos, retain))


def test_the_writer_stores_a_batch_and_acknowledges_each_box_once(tmp_path, synced):
    logged = []
    keep = keeper.Keeper(str(tmp_path), records.Tables(str(tmp_path)), "127.0.0.1", 1,
                         logged.append)
    keep.client = Client()
    lines = header_lines()
    batch = [Message("t1", G1, seq, lines[seq - 1]) for seq in range(1, 4)]
    batch += [Message("t2", G1, 1, lines[0]), Message("t1", G1, 4, lines[3])]
    bad = Message("t2", G1, 1, lines[0])
    bad.payload = b"not json"
    batch.append(bad)
    for message in batch:
        keep._on_message(None, None, message)
    keep.queue.put(None)
    keep._write()
    assert sorted(keep.client.published) == [
        (protocol.ack_topic("t1"), (G1, 4), 1, True), (protocol.ack_topic("t2"), (G1, 1), 1, True)]
    assert synced == [str(tmp_path), os.path.join(str(tmp_path), records.LOG)]   # the log
    assert keep.dropped == 1 and logged == ["dropped a message on matchbox/t2/journal: not JSON"]


def test_views_are_made_again_only_for_tables_that_changed(tmp_path, monkeypatch):
    made = collections.Counter()
    real = standings.table_view
    monkeypatch.setattr(standings, "table_view",
                        lambda reader, table: (made.update([table.box]), real(reader, table))[1])
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    for box in ("t1", "t2", "t3"):
        tables.store(box, G1, 1, lines[0])
    the_site = site.Site(tables)
    first = the_site.views()
    assert made == {"t1": 1, "t2": 1, "t3": 1}
    tables.store("t2", G1, 2, lines[1])
    second = the_site.views()
    assert made == {"t1": 1, "t2": 2, "t3": 1}
    assert [v["seq"] for v in first] == [1, 1, 1] and [v["seq"] for v in second] == [1, 2, 1]
    assert [{k: v for k, v in view.items() if k != "displays"} for view in second] == [
        real(the_site.reader, t) for t in tables.tables.values()]
    assert os.path.exists(tables.table("t2").path())


def test_lines_whose_fsync_failed_are_not_acknowledged_until_it_succeeds(tmp_path, monkeypatch):
    """An fsync that fails leaves its lines unacknowledged (the box sends them again); their
    duplicates fsync the file again, and only then does the acknowledgement move on."""
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    assert tables.store_all([("t1", G1, 1, lines[0], None, None)]) == [records.STORED]
    real = records._sync
    fail = [True]

    def flaky(path):
        if fail[0]:
            raise OSError(5, "Input/output error")
        real(path)
    monkeypatch.setattr(records, "_sync", flaky)
    with pytest.raises(OSError):
        tables.store_all([("t1", G1, 2, lines[1], None, None),
                          ("t1", G1, 3, lines[2], None, None)])
    t1 = tables.table("t1")
    assert t1.ack() == (G1, 1)            # written, not known to be on disk: not acknowledged
    with pytest.raises(OSError):          # sent again while the disk still fails
        tables.store_all([("t1", G1, 2, lines[1], None, None)])
    assert t1.ack() == (G1, 1)
    fail[0] = False
    assert tables.store_all([("t1", G1, 2, lines[1], None, None),
                             ("t1", G1, 3, lines[2], None, None)]) \
        == [records.DUPLICATE] * 2
    assert t1.ack() == (G1, 3)

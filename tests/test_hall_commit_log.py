"""The hall's commit log (records.Tables): a batch's lines are acknowledged once the log is
fsynced, before their tables' files are; a power cut at any moment loses no line acknowledged.

The cut is simulated as POSIX allows it: a file keeps its bytes up to its last fsync and may keep
any part of what was written after; a name made in a folder after that folder's last fsync may
be gone. Every line acknowledged before the cut must then be in its table's file at its number
once the hall opens the folder again (records._recover), and acknowledged again."""
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from hall_helpers import header_lines, journal
from host_tools.hall import records

pytestmark = pytest.mark.timeout(120)
BOXES = ("t1", "t2", "t3")
G1, G2 = "001-00000001", "002-00000002"


def games_of(seed):
    """Two games of a box: [(game, seq, line, prev)] in the order the box sends them."""
    first, second = journal(seed)[0], journal(seed + 100)[0]
    out = [(G1, seq, line, None) for seq, line in enumerate(first, 1)]
    out += [(G2, seq, line, (G1, len(first)) if seq == 1 else None)
            for seq, line in enumerate(second, 1)]
    return out


SENDS = {box: games_of(n) for n, box in enumerate(BOXES)}


class Disk:
    """What an fsync has made safe: a file's size, a folder's names (records._sync wrapped)."""

    def __init__(self, monkeypatch):
        self.size, self.names = {}, {}
        real = records._sync

        def sync(path):
            real(path)
            if os.path.isdir(path):
                self.names[path] = set(os.listdir(path))
            elif os.path.exists(path):
                self.size[path] = os.path.getsize(path)
        monkeypatch.setattr(records, "_sync", sync)

    def named(self, path):
        """Whether a path's name is safe: in its folder at that folder's last fsync (and a
        table's folder in tables/)."""
        folder = os.path.dirname(path)
        if os.path.basename(path) not in self.names.get(folder, ()):
            return False
        return os.path.basename(os.path.dirname(folder)) != "tables" or self.named(folder)

    def cut(self, hall, rng):
        """A power cut: each file written since its fsync keeps a random part of it, each name
        made since its folder's fsync may be gone."""
        paths = [os.path.join(hall, records.LOG)]
        for here, _, names in os.walk(os.path.join(hall, "tables")):
            paths += [os.path.join(here, n) for n in names]
        for path in paths:
            if not os.path.exists(path):
                continue
            if not self.named(path) and rng.random() < 0.5:
                os.remove(path)
                continue
            keep = self.size.get(path, 0)
            with open(path, "r+b") as f:
                f.truncate(rng.randint(min(keep, os.path.getsize(path)), os.path.getsize(path)))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 32 - 1), checkpoint=st.sampled_from([150, 700, 4 << 20]))
def test_a_power_cut_at_any_batch_loses_no_acknowledged_line(tmp_path_factory, monkeypatch,
                                                              seed, checkpoint):
    rng = random.Random(seed)
    hall = str(tmp_path_factory.mktemp("hall"))
    monkeypatch.setattr(records, "CHECKPOINT_BYTES", checkpoint)
    disk = Disk(monkeypatch)
    tables = records.Tables(hall)
    sent = {box: 0 for box in BOXES}
    acked = {}   # (box, game) -> the lines acknowledged of it
    for _ in range(rng.randint(1, 25)):
        batch = []
        for _ in range(rng.randint(1, 8)):
            box = rng.choice(BOXES)
            if sent[box] and rng.random() < 0.2:
                n = rng.randint(0, sent[box] - 1)   # sent again: a duplicate
            elif sent[box] < len(SENDS[box]):
                n, sent[box] = sent[box], sent[box] + 1
            else:
                continue
            game, seq, line, prev = SENDS[box][n]
            batch.append((box, game, seq, line, prev, None))
        results = tables.store_all(batch)
        for (box, game, seq, line, *_), result in zip(batch, results):
            assert result in (records.STORED, records.DUPLICATE), result
            acked[box, game] = max(acked.get((box, game), 0), seq)
    tables.close()
    disk.cut(hall, rng)
    again = records.Tables(hall)
    for (box, game), count in acked.items():
        want = [line for g, _, line, _ in SENDS[box] if g == game][:count]
        with open(os.path.join(hall, "tables", box, game + ".txt")) as f:
            assert f.read().split("\n")[:count] == want
        assert again.table(box).synced[game] >= count
    assert os.path.getsize(os.path.join(hall, records.LOG)) == 0   # played into the files
    again.close()


def test_the_log_is_emptied_at_a_checkpoint_once_the_files_are_fsynced(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "CHECKPOINT_BYTES", 100)
    disk = Disk(monkeypatch)
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    log = os.path.join(str(tmp_path), records.LOG)
    for seq in (1, 2, 3):
        tables.store("t1", G1, seq, lines[seq - 1])
    assert os.path.getsize(log) > 100 and tables.table("t1").path() not in disk.size
    tables.store("t1", G1, 4, lines[3])              # the checkpoint first, then line 4
    path = tables.table("t1").path()
    assert disk.size[path] == len("".join(l + "\n" for l in lines[:3]).encode())
    assert "t1" in disk.names[tables.folder] and G1 + ".txt" in disk.names[os.path.dirname(path)]
    with open(log) as f:
        assert f.read() == "t1 %s 4 %s\n" % (G1, lines[3])
    tables.close()


def test_a_full_disk_leaves_no_part_of_a_line_in_the_log(tmp_path):
    """A write to the log cut short is cut back off: the next batch's lines do not run into
    it, and the lines of the failed batch, not acknowledged, are logged when sent again."""
    tables = records.Tables(str(tmp_path))
    lines = header_lines()
    tables.store("t1", G1, 1, lines[0])
    log = tables._log
    tables._log = Full(log)
    with pytest.raises(OSError):
        tables.store_all([("t1", G1, 2, lines[1], None, None)])
    tables._log = log
    assert tables.table("t1").ack() == (G1, 1)
    assert tables.store_all([("t1", G1, 2, lines[1], None, None)]) == [records.DUPLICATE]
    assert tables.table("t1").ack() == (G1, 2)
    with open(os.path.join(str(tmp_path), records.LOG)) as f:
        assert f.read() == "".join("t1 %s %d %s\n" % (G1, n, lines[n - 1]) for n in (1, 2))
    tables.close()


class Full:
    """The log's file on a full disk: a write takes 7 bytes, then fails."""

    def __init__(self, f):
        self.f = f

    def write(self, data):
        self.f.write(bytes(data[:7]))
        raise OSError(28, "No space left on device")

    def __getattr__(self, name):
        return getattr(self.f, name)


def test_a_game_taken_again_from_line_1_is_played_back_as_the_boxs_new_record(tmp_path):
    """The log holds a game's old lines, then (its copy set aside) the box's rewritten record
    from line 1: played into a file that lost its last lines, the game ends as the new record,
    the old copy kept beside it."""
    old, new = header_lines(), header_lines(hands=(2, 3, 2))
    assert old[:5] == new[:5] and old[5] != new[5]
    tables = records.Tables(str(tmp_path))
    for seq, line in enumerate(old, 1):
        tables.store("t1", G1, seq, line)
    with pytest.raises(records.Refused, match="rewritten"):
        tables.store("t1", G1, 6, new[5])
    for seq, line in enumerate(new, 1):
        tables.store("t1", G1, seq, line)
    path = tables.table("t1").path()
    tables.close()
    with open(path, "r+b") as f:                     # the power cut: only 2 lines on disk
        f.truncate(len((new[0] + "\n" + new[1] + "\n").encode()))
    again = records.Tables(str(tmp_path))
    assert again.table("t1").ack() == (G1, 6)
    with open(path) as f:
        assert f.read().splitlines() == new
    with open(os.path.join(os.path.dirname(path), G1 + ".rewritten-1.txt")) as f:
        assert f.read().splitlines() == old
    again.close()


def test_a_log_line_that_is_not_the_halls_is_not_played(tmp_path):
    """Only a box's name, a game id and a number from 1 are played: a line put there by hand
    naming a path outside the tables, or a broken one, writes nothing."""
    lines = header_lines()
    with open(os.path.join(str(tmp_path), records.LOG), "w") as f:
        f.write("../x %s 1 %s\nt1 ../../y 1 %s\nt1 %s 0 %s\nt1 %s one %s\nt1\n"
                "t1 %s 1 %s\n" % (G1, lines[0], lines[0], G1, lines[0], G1, lines[0],
                                  G1, lines[0]))
    tables = records.Tables(str(tmp_path))
    assert tables.table("t1").ack() == (G1, 1)
    found = sorted(os.path.relpath(os.path.join(here, n), str(tmp_path))
                   for here, _, names in os.walk(str(tmp_path)) for n in names)
    assert found == [records.LOG, os.path.join("tables", "t1", G1 + ".txt")]
    tables.close()

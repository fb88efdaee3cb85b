"""The box's own uplink (box.mqtt_link under the unix port) into a hall served with its
embedded broker:
`matchbox sim --uplink` delivers a game whose record in the hall replays to the box's own
state, a box powered on again sends what the hall lacks, a hall killed with SIGKILL
mid-game and started again loses nothing while the box goes on, and a broker that never
answers or drops every connection holds neither the box's keys nor its journal."""
import io
import json
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

from hall_helpers import (CLI, Hall, acked_past, all_delivered, box_games, enrol, game_ops,
                          key_in, linked_box, until)
from host_tools.reports import replay_portable

pytestmark = pytest.mark.timeout(180)
SETUP = (3, 1, "none", 5, 6, [4, 3, 4])


def sim(flash, url, keys=(), timeout=30):
    argv = CLI + ["sim", "--headless", "--flash", flash, "--uplink", url,
                  "--uplink-timeout", str(timeout), "--keys", " ".join(keys)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout + 120,
                          stdin=subprocess.DEVNULL)


def replayed(data):
    game, error = replay_portable.replay_file(io.BytesIO(data))
    assert error is None, error
    from tycoon import writer
    return json.loads(writer.to_json(game))


@pytest.fixture
def hall(tmp_path):
    folder = str(tmp_path / "hall")
    h = Hall(folder)
    h.url = enrol(folder, "t1", h.mqtt)
    yield h
    h.stop()


def test_sim_uplink_delivers_a_game_that_replays_to_the_box(hall, tmp_path):
    hall.start()
    flash = str(tmp_path / "flash")
    ops, game = game_ops(3, SETUP, 60)
    assert game.finished and ["UNDO"] in ops
    out = sim(flash, hall.url, [k for op in ops for k in op])
    assert out.returncode == 0, out.stderr
    box_state = json.loads(out.stdout)["state"]
    record = hall.get("/tables/t1.txt")
    with open(os.path.join(flash, "games", "current.txt"), "rb") as f:
        assert record == f.read()
    assert replayed(record) == box_state
    table = hall.tables()["t1"]
    assert table["state"] == box_state and table["seq"] == record.count(b"\n")
    replay = subprocess.run(CLI + ["replay", "--json", "-"], input=record, capture_output=True,
                            timeout=60)
    assert replay.returncode == 0 and json.loads(replay.stdout)["state"] == table["state"]
    standings = json.loads(hall.get("/standings.json"))
    assert standings["games"] == 1
    points = {p["seat"]: p["points"] for p in standings["players"]}
    assert points == {seat: 3 - place for place, seat in enumerate(box_state["ranking"], 1)}


def test_a_box_powered_on_again_sends_what_the_hall_lacks(hall, tmp_path):
    flash = str(tmp_path / "flash")
    ops, _ = game_ops(5, SETUP, 12)
    out = sim(flash, hall.url, [k for op in ops for k in op], timeout=2)   # no hall yet
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "matchbox sim: --uplink: not all delivered after 2 s: no acknowledgement from the hall; "
        "the journal has "), lines
    hall.start()
    out = sim(flash, hall.url)                                     # powered on again, no keys
    assert out.returncode == 0, out.stderr
    assert [(g, data) for g, data in box_games(flash)] == \
        [(g, hall.files()[os.path.join("t1", g + ".txt")]) for g, _ in box_games(flash)]


def test_a_wiped_box_sends_its_new_games_and_the_hall_keeps_the_old_ones(hall, tmp_path):
    """Two games with `sim --uplink`, the flash folder wiped (as `matchbox uf2` wipes a Pico)
    and the same two games played again, one power-up each: the hall acknowledged the old game
    002, which the box's new numbering had not reached (it sent nothing: "not all delivered";
    then its game 002 under the old id, the hall's copy set aside, and never its game 001). The new games reach the hall under ids of their own (the new
    journal's id is in them), and the old records stay as they were."""
    hall.start()
    flash = str(tmp_path / "flash")
    one, _ = game_ops(21, SETUP, 60)
    two, _ = game_ops(22, SETUP, 60, first=["MENU:long"])
    keys = [k for op in one + two for k in op]
    out = sim(flash, hall.url, keys)
    assert out.returncode == 0, out.stderr
    old = hall.files()
    assert old == {os.path.join("t1", g + ".txt"): data for g, data in box_games(flash)}
    assert len(old) == 2
    shutil.rmtree(flash)
    for ops in one, two:   # game 001 alone first: the hall's last game is 002
        out = sim(flash, hall.url, [k for op in ops for k in op])
        assert out.returncode == 0, out.stderr
    new = {os.path.join("t1", g + ".txt"): data for g, data in box_games(flash)}
    assert len(new) == 2 and sorted(new.values()) == sorted(old.values())   # the same games
    assert hall.files() == dict(old, **new)


def test_a_wrong_password_is_one_line(hall, tmp_path):
    hall.start()
    out = sim(str(tmp_path / "flash"), hall.url.replace("@", "x@"), timeout=20)
    assert out.returncode == 2
    assert out.stderr.strip() == "matchbox sim: --uplink: the broker refused box 't1': Not authorized"
    for bad, why in (("mqtt://127.0.0.1:1", "no box name and password"), ("x", "not an mqtt://")):
        out = subprocess.run(CLI + ["sim", "--headless", "--flash", str(tmp_path / "f"),
                                    "--uplink", bad], capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and why in out.stderr and len(out.stderr.splitlines()) == 1
    out = subprocess.run(CLI + ["sim", "--headless", "--uplink", hall.url],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "--uplink: needs --flash DIR" in out.stderr


def test_hall_killed_mid_game_loses_nothing(hall, tmp_path):
    hall.start()
    flash = str(tmp_path / "flash")
    ops, game = game_ops(11, SETUP, 60)
    with linked_box(flash, hall.url) as box:
        box.boot()
        third = len(ops) // 3
        for op in ops[:third]:
            key_in(box, op)
        assert acked_past(box, 6, 10), box.link
        hall.kill()                                    # SIGKILL: the hall and its broker
        for op in ops[third:2 * third]:                # the box goes on without the hall
            key_in(box, op)
        hall.start()
        for op in ops[2 * third:]:
            key_in(box, op)
        box_state = box.state()
        assert all_delivered(box, 30) is True
    [(game_id, data)] = box_games(flash)
    assert hall.files() == {os.path.join("t1", game_id + ".txt"): data}
    assert replayed(data) == box_state


def test_a_box_enrolled_while_the_hall_runs_with_nothing_yet(hall, tmp_path):
    hall.start()
    url = enrol(hall.folder, "t5", hall.mqtt)           # the hall has no ack for it yet
    out = sim(str(tmp_path / "empty"), url, timeout=20)
    assert out.returncode == 0, out.stderr
    ops, _ = game_ops(7, SETUP, 5)
    out = sim(str(tmp_path / "t5"), url, [k for op in ops for k in op], timeout=20)
    assert out.returncode == 0, out.stderr
    [(game, data)] = box_games(str(tmp_path / "t5"))
    assert hall.files()[os.path.join("t5", game + ".txt")] == data


def test_a_record_rewritten_on_the_box_is_taken_and_the_halls_copy_kept(hall, tmp_path):
    """The box repaired its record at power-up, its undo lines played out (fewer lines, other
    texts under the same numbers): the uplink, sending again the line the hall acknowledged
    last, shows the hall the difference; the hall keeps its copy as GAME.rewritten-1.txt and
    takes the box's record from line 1, and `deliver` finishes. So for a record cut shorter,
    every line it kept the same: its line 1 says how many lines it replaces."""
    import engine_helpers as eh
    from tycoon import writer
    from tycoon.game import Game
    hall.start()
    rng = eh.Lcg(7)
    game = Game(*SETUP)
    header = writer.header_text(game).split("\n")[:-1]
    actions = []
    for _ in range(12):
        eh.step(game, rng)
        actions.append(writer.action_text(*list(game.actions())[-1])[:-1])
    journal = header + actions[:5] + ["undo", actions[4]] + actions[5:]
    played_out = header + actions
    current = tmp_path / "flash" / "games" / "current.txt"
    current.parent.mkdir(parents=True)

    def write(texts):
        current.write_bytes(b"".join(writer.tagged(i + 1, t) for i, t in enumerate(texts)))
        return current.read_bytes()
    before = write(journal)
    out = sim(str(tmp_path / "flash"), hall.url)   # the box powered on: its own link
    assert out.returncode == 0, out.stderr
    assert hall.get("/tables/t1.txt") == before
    after = write(played_out)                     # what a repair at power-up leaves
    out = sim(str(tmp_path / "flash"), hall.url)   # the box powered on: its own link
    assert out.returncode == 0, out.stderr
    assert hall.get("/tables/t1.txt") == after
    [(game_id, _)] = box_games(str(tmp_path / "flash"))
    files = hall.files()
    assert files[os.path.join("t1", game_id + ".rewritten-1.txt")] == before
    assert files[os.path.join("t1", game_id + ".txt")] == after
    assert "the box's record was rewritten; the hall's copy is kept as %s.rewritten-1.txt" \
        % game_id in hall.messages()
    assert replayed(after) == replayed(before)
    shorter = write(played_out[:-2])   # fewer lines, every one it kept the same (a damaged
    out = sim(str(tmp_path / "flash"), hall.url)   # end cut off at power-up)
    assert out.returncode == 0, out.stderr
    assert hall.get("/tables/t1.txt") == shorter
    files = hall.files()
    assert files[os.path.join("t1", game_id + ".rewritten-2.txt")] == after
    assert "took game %s of t1 again from the box's line 1: the box's record was rewritten; " \
        "the hall's copy is kept as %s.rewritten-2.txt" % (game_id, game_id) in hall.messages()


class Stub:
    """A TCP server on the hall's MQTT port that takes connections and never answers them
    (`silent`), or closes each as soon as it has read something (`closing`)."""

    def __init__(self, port):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", port))
        self.listener.listen(8)
        self.listener.settimeout(0.1)
        self.mode = "silent"
        self.held = []
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while self.running:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                continue
            self.accepted += 1
            if self.mode == "silent":
                self.held.append(conn)
                continue
            conn.settimeout(5)
            try:
                conn.recv(1)
            except OSError:
                pass
            conn.close()

    def close(self):
        self.running = False
        self.thread.join(5)
        for conn in self.held:
            conn.close()
        self.listener.close()


def test_a_broker_that_never_answers_or_drops_holds_neither_keys_nor_journal(hall, tmp_path):
    """Under the unix port, the box's own link against a server on the broker's port that
    takes the connection and says nothing (no CONNACK), then one that closes every
    connection: the box answers every key as without a link, its link gives up and tries
    again; once the hall takes that port, every line is delivered."""
    stub = Stub(hall.mqtt)
    flash = str(tmp_path / "flash")
    ops, game = game_ops(13, SETUP, 40)
    half = len(ops) // 2
    try:
        with linked_box(flash, hall.url) as box:
            box.boot()
            for op in ops[:half]:
                key_in(box, op)
            assert until(lambda: (box.advance(50), box.link["dropped"])[1] >= 1, 30), box.link
            assert box.link["why"] == "no answer from the broker" and stub.accepted >= 1
            assert not box.link["connected"]
            stub.mode = "closing"
            closed = box.link["dropped"]
            for op in ops[half:]:
                key_in(box, op)
            assert until(lambda: (box.advance(50), box.link["dropped"])[1] >= closed + 2, 60)
            assert box.link["why"] in ("the broker closed the connection", "socket error 104")
            from tycoon import writer
            assert box.state() == json.loads(writer.to_json(game))   # every key taken
            stub.close()
            time.sleep(0.2)
            hall.start()
            assert all_delivered(box, 60) is True
    finally:
        stub.close()
    [(game_id, data)] = box_games(flash)
    assert hall.files() == {os.path.join("t1", game_id + ".txt"): data}


def test_a_record_typed_by_hand_reaches_the_hall_as_the_box_took_it(hall, tmp_path):
    """A typed record copied onto the box, played on and the box powered on again: the hall's
    copy is the box's record line for line (the box took it as its own, tagged from line 1),
    and replays to the box's state."""
    hall.start()
    flash = tmp_path / "flash"
    (flash / "games").mkdir(parents=True)
    (flash / "games" / "current.txt").write_bytes(
        b"# begun on paper\nPLAYERS 2\r\nhands 5 5   \n1: play 3\nundo\nplay 3")
    out = sim(str(flash), hall.url, ["4", "PLAY"])
    assert out.returncode == 0, out.stderr
    out = sim(str(flash), hall.url, ["PASS"])                     # powered on again, played on
    assert out.returncode == 0, out.stderr
    box_state = json.loads(out.stdout)["state"]
    record = hall.get("/tables/t1.txt")
    assert record == (flash / "games" / "current.txt").read_bytes()
    assert record.startswith(b"players 2  #~") and record.count(b"#~") == record.count(b"\n")
    assert replayed(record) == box_state and box_state["table"] is None   # 3, 4, pass: cleared
    assert not (flash / "games" / "damaged").exists()

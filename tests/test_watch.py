"""`matchbox watch`: state lines of real games (the engine, and the firmware on the virtual box)
in, the mirror and the log of what happened out; through a file, stdin and a pty as the port.

The expected log lines come from the engine's own account of each action (the action taken,
its cost from check_play, the event flags it returned), not from comparing states.
"""
import io
import json
import os
import pty
import threading
import tty

import engine_helpers as eh
import pytest
import serial
from tycoon import writer
from tycoon.cards import char
from tycoon.game import CLEARED, FINISHED, FORCED, PASS, PLAY, RETURN, REVOLUTION, Game

from host_tools import cli
from host_tools.commands import watch
from host_tools.device.serial_board import BoardError
from host_tools.virtual.box import VBox, action_keys, setup_keys

NOISE = [
    "",
    "MPY: soft reboot",
    "Matchbox: maintenance mode. The app and the watchdog are off; the REPL is yours.",
    "Traceback (most recent call last):",
    '{"players": 4, "turn": 1',                 # cut short
    '{"players": 9, "turn": 1, "table": null}',  # not a state
    "null",
    "[1, 2, 3]",
    '{"players": "4"}',
    "\x00\xff garbage \x1b[2J",
]


def step(game, rng):
    """One random legal action (as engine_helpers.step does), with the engine's account of it:
    (kind, seat, count, value, sticks spent, events)."""
    seat = game.turn
    kind, faces, explicit = eh.choose(game, rng)
    if kind == RETURN:
        return (RETURN, seat, 0, None, 0, game.return_stick())
    if kind == PASS:
        return (PASS, seat, 0, None, 0, game.pass_turn())
    value, cost = game.check_play(faces, explicit)
    return (PLAY, seat, len(faces), char(value), cost, game.play(faces, explicit))


def say(kind, seat, count, value, cost):
    if kind == PLAY:
        return "seat %d played %d x %s%s" % (seat, count, value, {0: "", 1: " (1 stick)"}.get(cost, " (%d sticks)" % cost))
    return "seat %d passed" % seat if kind == PASS else "seat %d returned a stick" % seat


def expected(game, ranked_before, act):
    """The log lines watch must print for an action, from the engine's account."""
    kind, seat, count, value, cost, events = act
    lines = [say(kind, seat, count, value, cost)]
    if events & REVOLUTION:
        strongest = char(game.strongest())
        lines.append("revolution! %s is now strongest" % strongest if game.revolution
                     else "revolution again! back to the normal order, %s strongest" % strongest)
    if events & FORCED:
        lines.append("%s is strongest: every other seat takes a stick" % value)
    for rank, s in enumerate(game.ranking[ranked_before:], ranked_before + 1):
        if events & FINISHED and rank == game.players:
            lines.append("seat %d is the last one left (rank %d)" % (s, rank))
        else:
            lines.append("seat %d went out (rank %d)" % (s, rank))
    if events & FINISHED:
        lines.append("game over: ranking %s" % " ".join(str(s) for s in game.ranking))
    elif events & CLEARED:
        lines.append("table cleared: seat %d is the dealer" % game.turn)
    return lines


def played_game(seed, setup=None, undo_every=0):
    """(state lines, expected log lines) of a random game; with undo_every, every so many
    actions one is taken back (as the box's UNDO key does)."""
    rng = eh.Lcg(seed)
    game = Game(*(setup or eh.random_setup(rng)))
    lines = [writer.to_json(game)]
    log = ["watching: %d players, seat %d to act" % (game.players, game.turn)]
    n = 0
    while not game.finished and n < 400:
        ranked = len(game.ranking)
        act = step(game, rng)
        lines.append(writer.to_json(game))
        log += expected(game, ranked, act)
        n += 1
        if undo_every and n % undo_every == 0 and not game.finished:
            assert game.undo()
            lines.append(writer.to_json(game))
            log.append("undo (taken back: %s)" % say(*act[:5]))
    return lines, log


def log_of(output):
    """The log lines of watch's plain output (summary lines start with two spaces and '[')."""
    return [ln for ln in output.splitlines() if not ln.startswith("  [")]


def run_watch(lines, **kw):
    out = io.StringIO()
    shown = watch.watch(iter(lines), out=out, **kw)
    text = out.getvalue()
    assert shown == (text.count(watch.CLEAR) if kw.get("redraw") else
                     len([ln for ln in text.splitlines() if ln.startswith("  [")]))
    return out.getvalue()


@pytest.mark.parametrize("seed", range(12))
def test_log_of_random_games_matches_the_engine(seed):
    lines, log = played_game(seed)
    out = run_watch(lines)
    assert log_of(out) == log
    summaries = [ln for ln in out.splitlines() if ln.startswith("  [")]
    assert len(summaries) == len(lines)


def test_full_games_with_undos_and_every_kind_of_log_line():
    text = []
    for seed in range(6):
        lines, log = played_game(seed, setup=(5, 1 + seed % 5, "gh2", 4, 40, None), undo_every=7)
        assert log_of(run_watch(lines)) == log
        text += log
    joined = "\n".join(text)  # the games really went through every kind of line
    for phrase in (" played ", " passed", " returned a stick", "revolution! ", "revolution again! ",
                   "is strongest: every other seat takes a stick", " went out (rank ",
                   "is the last one left", "game over: ranking", "table cleared: seat", "undo (taken back"):
        assert phrase in joined, phrase


def test_malformed_lines_are_skipped():
    lines, log = played_game(4, undo_every=5)
    noisy = []
    for i, line in enumerate(lines):
        noisy.append(NOISE[i % len(NOISE)])
        noisy.append(line + ("\r" if i % 2 else ""))
        if i % 3 == 0:
            noisy.append(line[: len(line) // 2])
    assert log_of(run_watch(noisy)) == log
    assert run_watch(NOISE) == ""


def test_parse_state_accepts_only_states():
    game = Game(3)
    s = watch.parse_state(writer.to_json(game))
    assert s == json.loads(writer.to_json(game))
    for line in NOISE:
        assert watch.parse_state(line) is None, line
    bad = json.loads(writer.to_json(game))
    bad["seats"][1]["cards"] = "9"
    assert watch.parse_state(json.dumps(bad)) is None
    bad = json.loads(writer.to_json(game))
    bad["seats"].pop()
    assert watch.parse_state(json.dumps(bad)) is None


def test_new_game_and_jumps():
    a = Game(4)
    a.play([5])
    first = writer.to_json(a)
    a.pass_turn()
    a.pass_turn()
    later = writer.to_json(a)
    fresh = Game(3, dealer=2, hands=[10, 11, 12])
    out = log_of(run_watch([first, later, writer.to_json(fresh), writer.to_json(fresh)]))
    assert out == ["watching: 4 players, seat 2 to act",
                   "the state jumped (lines missed?): seat 4 to act",
                   "new game: 3 players, cards 10 11 12, seat 2 is the dealer"]  # the repeat adds nothing


def test_screen_redraws_with_seats_turn_and_log():
    lines, log = played_game(1, setup=(4, 1, "none", 5, 40, None))
    out = run_watch(lines[:6], redraw=True, log_size=3)
    frames = out.split(watch.CLEAR)[1:]
    assert len(frames) == 6
    last = frames[-1]
    s = json.loads(lines[5])
    assert "MATCHBOX  %d players" % s["players"] in last
    assert "order   normal order, F strongest" in last or "REVOLUTION" in last
    assert "  TURN    seat %d" % s["turn"] in last
    rows = [ln for ln in last.splitlines() if ln.startswith("  >>") or ln.startswith("      ") and ln.split()[0].isdigit()]
    assert len(rows) == s["players"]
    turn_row = [ln for ln in rows if ln.startswith("  >>")]
    assert len(turn_row) == 1 and turn_row[0].split()[1:4] == [str(s["turn"]), str(s["seats"][s["turn"] - 1]["cards"]),
                                                               str(s["seats"][s["turn"] - 1]["sticks"])]
    tail = last.split("what happened")[1].splitlines()[1:]
    assert [ln.strip() for ln in tail if ln.strip()] == log[3:6]  # the last 3 log lines


def test_screen_of_a_finished_game():
    lines, log = played_game(2)
    s = json.loads(lines[-1])
    assert s["finished"]
    text = watch.render(s, log[-2:], ignored=3)
    assert "GAME OVER   ranking %s" % " ".join(str(x) for x in s["ranking"]) in text
    assert "(3 other lines skipped)" in text
    assert ">>" not in text


# ---------------------------------------------------------------- the command

def test_file_and_stdin(capsys, tmp_path, monkeypatch):
    lines, log = played_game(5)
    path = tmp_path / "states.txt"
    path.write_text("\n".join(["boot noise"] + lines) + "\n")
    assert cli.main(["watch", "--file", str(path)]) == 0
    out, err = capsys.readouterr()
    assert log_of(out) == log
    assert cli.main(["watch", "--file", str(path), "--count", "3"]) == 0
    out, err = capsys.readouterr()
    assert log_of(out) == log_of(run_watch(lines[:3])) and log_of(out)[0] == log[0]
    assert len([ln for ln in out.splitlines() if ln.startswith("  [")]) == 3
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    assert cli.main(["watch", "--file", "-"]) == 0
    out, err = capsys.readouterr()
    assert log_of(out) == log


def test_missing_port_and_file(capsys, tmp_path):
    assert cli.main(["watch", "--port", str(tmp_path / "ttyNOPE")]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == "matchbox watch: no board at %s: no such device (is the Pico plugged in? " \
                          "`mpremote connect list` shows the serial ports)" % (tmp_path / "ttyNOPE")
    assert cli.main(["watch", "--file", str(tmp_path / "none.txt")]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == "matchbox watch: cannot read %s: no such file" % (tmp_path / "none.txt")


class Stream(io.StringIO):
    """A captured stream that tells when watch has the port open (stderr) or has shown
    `want` states (stdout)."""

    def __init__(self, want=None):
        super().__init__()
        self.want = want
        self.event = threading.Event()

    def write(self, s):
        n = super().write(s)
        text = self.getvalue()
        if self.want is None and text.startswith("watching "):
            self.event.set()
        if self.want is not None and text.count("\n  [") + text.startswith("  [") >= self.want:
            self.event.set()
        return n


def _serve(master, opened, shown, chunks):
    opened.wait(10)
    for chunk in chunks:
        os.write(master, chunk)
    shown.wait(10)  # closing now would drop what is still in the pty's buffers
    os.close(master)  # the box goes away


def _watch_pty(monkeypatch, chunks, argv, states):
    """Run `matchbox watch --port PTY argv` while a thread plays the box; (status, out, err)."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    port = os.ttyname(slave)
    out, err = Stream(states), Stream()
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    writer = threading.Thread(target=_serve, args=(master, err.event, out.event, chunks))
    writer.start()
    try:
        status = cli.main(["watch", "--port", port] + argv)
    finally:
        writer.join(20)
        os.close(slave)
    return status, out.getvalue(), err.getvalue(), port


def test_pty_as_the_port(monkeypatch):
    lines, log = played_game(7, undo_every=4)
    data = "".join(NOISE[i % len(NOISE)] + "\r\n" + line + "\r\n" for i, line in enumerate(lines)).encode("utf-8", "replace")
    # awkward chunk boundaries, as USB serial delivers them
    chunks = [data[i:i + 37] for i in range(0, len(data), 37)]
    status, out, err, port = _watch_pty(monkeypatch, chunks, ["--once"], len(lines))
    assert status == 0
    assert err.startswith("watching %s" % port)
    assert log_of(out) == log


def test_pty_count_stops_early(monkeypatch):
    lines, log = played_game(8)
    status, out, err, port = _watch_pty(monkeypatch, [(ln + "\n").encode() for ln in lines], ["--count", "4"], 4)
    assert status == 0
    assert log_of(out) == log_of(run_watch(lines[:4]))
    assert len([ln for ln in out.splitlines() if ln.startswith("  [")]) == 4


# ---------------------------------------------------------------- the real firmware

def test_states_from_the_firmware_on_the_virtual_box():
    """The state lines the firmware itself emits (hw.emit) while a game is keyed in on the
    virtual box: watch's log must tell the engine's story of that game."""
    rng = eh.Lcg(21)
    setup = (4, 2, "none", 5, 40, [8, 8, 8, 8])
    game = Game(*setup)
    acts, log = [], ["watching: 4 players, seat 2 to act"]
    while not game.finished:
        ranked = len(game.ranking)
        act = step(game, rng)
        acts.append(list(game.actions())[-1])
        log += expected(game, ranked, act)
    with VBox() as box:
        box.boot()
        box.keys(setup_keys(*setup))
        for a in acts:
            box.keys(action_keys(*a))
        box.advance(500)
        emitted = list(box.emitted)
    assert json.loads(emitted[-1]) == json.loads(writer.to_json(game))
    assert log_of(run_watch(emitted)) == log


class FakeSerial:
    """A port that delivers its data, then fails as an unplugged USB device does."""

    def __init__(self, data):
        self.data = data

    @property
    def in_waiting(self):
        return len(self.data)

    def read(self, n):
        if not self.data:
            raise serial.SerialException("device reports readiness to read but returned no data")
        chunk, self.data = self.data[:n], self.data[n:]
        return chunk

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def test_waits_for_the_box_to_come_back(monkeypatch):
    lines, log = played_game(9, setup=(3, 1, "none", 5, 40, None))
    half = len(lines) // 2
    ports = [FakeSerial("\n".join(lines[:half]).encode() + b"\n"),
             None,  # still gone at the first retry
             FakeSerial("\n".join(lines[half:]).encode() + b"\n")]

    def reopen(port):
        p = ports.pop(0)
        if p is None:
            raise BoardError("no board at %s: no such device" % port)
        return p

    monkeypatch.setattr(watch, "_open", reopen)
    monkeypatch.setattr(watch, "RETRY_S", 0)
    err = Stream()
    monkeypatch.setattr("sys.stderr", err)
    out = io.StringIO()
    watch.watch(watch.port_lines("ttyFAKE"), out=out, count=len(lines))
    assert log_of(out.getvalue()) == log
    assert err.getvalue().splitlines()[1:] == ["lost the box on ttyFAKE; waiting for it to come back...",
                                               "the box is back on ttyFAKE"]
    assert not ports

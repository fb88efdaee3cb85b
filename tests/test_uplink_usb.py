"""`matchbox uplink` (host_tools/commands/uplink.py) carrying a box's journal from its USB
serial (box.usb_link) to a hall served with its embedded broker: on the unix-port virtual box
and on the emulated Pico (official MicroPython with the box on its littlefs, where its UF2 is
given), keys played while the bridge runs, is
stopped with Ctrl-C mid-game and started again; the hall's record is the box's current.txt
byte for byte, nothing lost or doubled. Also every refusal of the command, in one line."""
import os
import pty
import signal
import subprocess
import time
import tty

import pytest

from hall_helpers import CLI, Hall, enrol, free_port, until
from host_tools.virtual import emulated_pico as ep
from host_tools.virtual.box import VBox, action_keys, setup_keys

pytestmark = pytest.mark.timeout(600)
SETUP = (3, 1, "none", 5, 6, [4, 3, 4])


def game_keys(seed, actions):
    """Keys of a random legal game from SETUP (an UNDO and the action again every 5th), and
    how many record lines it makes."""
    import engine_helpers as eh
    from tycoon.game import Game
    rng = eh.Lcg(seed)
    game = Game(*SETUP)
    keys = [setup_keys(*SETUP)]
    lines = 6
    for n in range(actions):
        if game.finished:
            break
        eh.step(game, rng)
        done = list(game.actions())
        keys.append(action_keys(*done[-1]))
        lines += 1
        if n % 5 == 4 and not game.finished:
            keys.append(["UNDO"] + action_keys(*done[-1]))
            lines += 2
    return keys, lines


@pytest.fixture
def hall(tmp_path):
    folder = str(tmp_path / "hall")
    h = Hall(folder)
    h.url = enrol(folder, "t1", h.mqtt)
    h.start()
    yield h
    h.stop()


def uplink(url, port, log):
    return subprocess.Popen(CLI + ["uplink", url, "--port", port], stdout=log,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)


def ctrl_c(proc):
    os.killpg(proc.pid, signal.SIGINT)
    return proc.wait(20)


def hall_has(hall, lines):
    def check():
        try:
            return hall.tables().get("t1", {}).get("seq") == lines
        except OSError:
            return False
    return check


def carry_a_game(board, hall, tmp_path, seed, actions, within):
    """Play a game on `board` (bridged on a pty) while `matchbox uplink` runs, stopped with
    Ctrl-C in the middle and started again; returns (the bridge's outputs, record lines)."""
    keys, lines = game_keys(seed, actions)
    half = len(keys) // 2
    log_path = tmp_path / "uplink.log"
    outputs = []
    with ep.PicoPty(board) as relay, open(log_path, "wb") as log:
        for k in keys[:1]:
            relay.keys(k)
        first = uplink(hall.url, relay.port, log)
        for k in keys[1:half]:
            relay.keys(k)
        sent = 6 + sum(1 for k in keys[1:half]) + sum(1 for k in keys[1:half] if k[0] == "UNDO")
        assert until(hall_has(hall, sent), within), open(log_path).read()
        assert ctrl_c(first) == 130
        for k in keys[half:half + 3]:   # keys while no bridge runs
            relay.keys(k)
        second = uplink(hall.url, relay.port, log)
        for k in keys[half + 3:]:
            relay.keys(k)
        assert until(hall_has(hall, lines), within), open(log_path).read()
        assert ctrl_c(second) == 130
    with open(log_path) as f:
        outputs = f.read()
    return outputs, lines


def check_record(hall, box_record, outputs, lines):
    record = hall.get("/tables/t1.txt")
    assert record == box_record, outputs
    assert record.count(b"\n") == lines
    assert outputs.count("uplink: the box is ready") == 2, outputs
    assert "matchbox uplink: stopped" in outputs.splitlines()
    assert "differs" not in hall.messages() and "dropped" not in hall.messages(), hall.messages()
    files = hall.files()
    assert len(files) == 1 and list(files.values())[0] == box_record, files


def test_unix_port_box_through_uplink(hall, tmp_path):
    with VBox() as box:
        box.boot()
        box.advance(300)
        outputs, lines = carry_a_game(box, hall, tmp_path, 3, 14, 60)
        check_record(hall, box.journal_text().encode(), outputs, lines)


@pytest.mark.skipif(ep.missing() is not None, reason="emulated Pico: %s" % ep.missing())
def test_emulated_pico_through_uplink(hall, tmp_path):
    """The box on official MicroPython on the emulated RP2040: its USB CDC serial is the pty."""
    with ep.EmulatedPico() as pico:
        pico.boot()
        outputs, lines = carry_a_game(pico, hall, tmp_path, 5, 14, 120)
        check_record(hall, pico.journal_text().encode(), outputs, lines)
        # the keys went on while the link ran, and Ctrl-C still stops the box for mpremote
        assert pico.interrupt() == "repl"


# --- refusals, one line each ------------------------------------------------------------------

def run(*argv, timeout=60):
    return subprocess.run(CLI + ["uplink"] + list(argv), capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def test_refusals(tmp_path):
    out = run("http://t1:pw@127.0.0.1:1883", "--port", str(tmp_path / "tty"))
    assert (out.returncode, out.stderr) == (
        2, "matchbox uplink: URL: not an mqtt://HOST:PORT URL\n")
    out = run("mqtt://127.0.0.1:1883", "--port", str(tmp_path / "tty"))
    assert out.returncode == 2 and out.stderr.startswith(
        "matchbox uplink: URL: no box name and password in it") and out.stderr.count("\n") == 1
    out = run("mqtt://t1:pw@127.0.0.1:1883", "--port", str(tmp_path / "ttyNOPE"))
    assert (out.returncode, out.stderr) == (2, "matchbox uplink: no board at %s: no such device "
                                               "(is the Pico plugged in? `mpremote connect list` "
                                               "shows the serial ports)\n" % (tmp_path / "ttyNOPE"))
    out = run("mqtt://t1:pw@127.0.0.1:1883")   # --port auto, and no Pico on this machine
    assert out.returncode == 2 and out.stderr.startswith(
        "matchbox uplink: no Matchbox found: no Pico running MicroPython (USB 2e8a:0005) is "
        "plugged in") and out.stderr.count("\n") == 1, out.stderr
    out = run("mqtt://t1:pw@127.0.0.1:1883", "--timeout", "0")
    assert out.returncode == 2 and "--timeout" in out.stderr and out.stderr.count("\n") == 1


def _pty():
    master, slave = pty.openpty()
    tty.setraw(slave)
    return master, slave, os.ttyname(slave)


def test_broker_refusing_the_box_and_no_broker(hall, tmp_path):
    master, slave, port = _pty()
    try:
        wrong = hall.url.replace("t1:", "t1:x", 1)
        out = run(wrong, "--port", port)
        assert out.returncode == 2, out.stderr
        assert out.stderr == ("matchbox uplink: mqtt://t1@127.0.0.1:%d: the broker refused box "
                              "'t1': Not authorized\n" % hall.mqtt), out.stderr
        out = run("mqtt://t1:pw@127.0.0.1:%d" % free_port(), "--port", port, "--timeout", "2")
        assert out.returncode == 2
        assert out.stderr.endswith("the broker did not take box 't1' within 2 s\n"), out.stderr
    finally:
        os.close(master)
        os.close(slave)


def test_a_box_that_does_not_answer(hall, tmp_path):
    """A port with no Matchbox behind it (nothing answers `hall ping`)."""
    master, slave, port = _pty()
    try:
        out = run(hall.url, "--port", port, "--timeout", "3")
        assert out.returncode == 2
        assert out.stderr == ("matchbox uplink: %s: the box did not answer in 3 s: is the "
                              "Matchbox firmware running (not stopped at the REPL, nor in "
                              "maintenance mode)?\n" % port), out.stderr
        assert "logged in to the broker as t1" in out.stdout
    finally:
        os.close(master)
        os.close(slave)


def test_the_port_going_away(hall, tmp_path):
    master, slave, port = _pty()
    log = open(tmp_path / "log", "wb")
    proc = subprocess.Popen(CLI + ["uplink", hall.url, "--port", port], stdout=log,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        time.sleep(3)
        os.close(master)
        os.close(slave)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
        log.close()
    assert proc.returncode == 2
    assert err.decode().startswith("matchbox uplink: %s: the port went away" % port), err

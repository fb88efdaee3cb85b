"""Every `matchbox` command with the slips a person makes: one line, the documented exit status,
no traceback, and the person's files as they were.

Each case runs the real command (a subprocess) in a folder of the person's files: a game
record, an empty file, a binary file, a text file, a folder and a sparse 1 GB file. The
message must be one line on stderr naming the thing and the reason; every file of the folder
must be byte for byte what it was, nothing new may appear in it, and nothing may be left in
the temporary folder. Ctrl-C and SIGTERM are sent at the stages where a command works for a
while (the MicroPython replay, the simulated box); a wrong or swapped UF2 or boot ROM for
`sim --pico` is named before Node starts.
"""
import hashlib
import os
import pty
import random
import select
import signal
import stat
import subprocess
import sys
import time

import pytest

from host_tools.errors import INTERRUPTED, TERMINATED
from uf2_helpers import blocks, micropython_uf2

GAME = "players 3\nhands 4 4 4\nplay 5\npass\nplay 7\n"
HUGE = 1 << 30          # a sparse file: no disk space, but 1 GB to anyone who reads it
NO_PORT = "/nonexistent/ttyACM9"


@pytest.fixture
def home(tmp_path):
    """The person's folder: (path, environment for the command)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "game.txt").write_text(GAME)
    (home / "empty.txt").write_bytes(b"")
    (home / "binary.bin").write_bytes(bytes(random.Random(19).randrange(256) for _ in range(4096)))
    (home / "notes.txt").write_text("a file, not a folder\n")
    (home / "dir").mkdir()
    (home / "dir" / "kept.txt").write_text("kept\n")
    (home / "figs.svg").mkdir()          # a folder with the name of an output file
    os.mkfifo(home / "fifo")             # a named pipe nobody writes to: opened, it waits
    with open(home / "huge.txt", "wb") as f:
        f.truncate(HUGE)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # a cache of its own, and no download: without the checkout's node_modules, `matchbox web`
    # says it cannot get the WebAssembly build (tests/test_web_build.py gets it offline)
    env = dict(os.environ, TMPDIR=str(tmp), TERM="xterm", XDG_CACHE_HOME=str(tmp_path / "cache"),
               MATCHBOX_WASM_URL=(tmp_path / "no-such-package.tgz").as_uri())
    for name in ("MATCHBOX_TRACEBACK", "COLUMNS", "LINES"):
        env.pop(name, None)
    return home, env


def snapshot(folder):
    """{relative path: sha256 of the bytes (size and mtime for the sparse giant)}."""
    out = {}
    for root, dirs, names in os.walk(folder):
        for name in dirs + names:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if stat.S_ISFIFO(os.lstat(path).st_mode):
                out[rel] = "fifo"
            elif os.path.isdir(path):
                out[rel] = "dir"
            elif os.path.getsize(path) >= HUGE:
                st = os.stat(path)
                out[rel] = (st.st_size, st.st_mtime_ns)
            else:
                with open(path, "rb") as f:
                    out[rel] = hashlib.sha256(f.read()).hexdigest()
    return out


def matchbox(argv, cwd, env, timeout=60):
    return subprocess.run([sys.executable, "-m", "host_tools.cli"] + list(argv), cwd=str(cwd),
                          env=env, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def one_line(stderr, command):
    """The one message line on stderr, checked for its shape."""
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    prefix = "matchbox %s: " % command if command else "matchbox: "
    assert lines[0].startswith(prefix), lines[0]
    return lines[0]


# (command words, exit status, words the message must hold). Paths are relative to the
# person's folder. 2 = cannot do what was asked, 1 = a verdict (docs/commands.md, "Exit status").
CASES = [
    ((), 2, ["COMMAND", "required"]),
    (("nope",), 2, ["nope", "invalid choice"]),
    # replay
    (("replay",), 2, ["FILE", "required"]),
    (("replay", "missing.txt"), 2, ["missing.txt", "no such file"]),
    (("replay", "dir"), 2, ["dir", "it is a directory"]),
    (("replay", "fifo"), 2, ["cannot read fifo", "it is a FIFO"]),
    (("replay", "--runtime", "micropython", "fifo"), 2, ["cannot read fifo", "it is a FIFO"]),
    (("replay", "--runtime", "perl", "game.txt"), 2, ["--runtime", "invalid choice"]),
    (("replay", "--runtime", "micropython", "missing.txt"), 2, ["missing.txt", "no such file"]),
    (("replay", "--runtime", "micropython", "dir"), 2, ["dir", "it is a directory"]),
    # uf2
    (("uf2",), 2, ["--micropython", "micropython.org/download/RPI_PICO/"]),
    (("uf2", "--micropython", "none.uf2"), 2, ["none.uf2", "no such file"]),
    (("uf2", "--micropython", "game.txt"), 2, ["game.txt", "not a UF2 file"]),
    (("uf2", "--micropython", "huge.txt"), 2, ["huge.txt", "too large"]),
    (("uf2", "--micropython", "dir"), 2, ["dir", "is a directory"]),
    (("uf2", "--micropython", "fifo"), 2, ["cannot read fifo", "it is a FIFO"]),
    (("uf2", "--micropython", "/dev/zero"), 2, ["cannot read /dev/zero", "it is a device"]),
    (("uf2", "--micropython", "game.txt", "-o", "dir"), 2, ["dir", "it is a directory"]),
    (("uf2", "--micropython", "game.txt", "-o", "notes.txt"), 2,
     ["notes.txt", "it exists (--force replaces it)"]),
    (("uf2", "--micropython", "game.txt", "-o", "/proc/box.uf2"), 2,
     ["/proc", "takes no new files"]),
    # ref
    (("ref", "Z"), 2, ["'Z'", "not a card"]),
    (("ref", "99"), 2, ["'99'", "not a card"]),
    (("ref", ""), 2, ["''", "not a card"]),
    (("ref", "--lang", "fr"), 2, ["--lang", "invalid choice: 'fr'"]),
    # card
    (("card", "--lang", "fr"), 2, ["--lang", "invalid choice: 'fr'"]),
    (("card", "--paper", "b5"), 2, ["--paper", "invalid choice: 'b5'"]),
    (("card", "-o", "dir"), 2, ["cannot write dir", "it is a directory"]),
    (("card", "-o", "nofolder/card.pdf"), 2, ["nofolder/card.pdf", "no such folder"]),
    (("card", "-o", "/proc/card.pdf"), 2, ["/proc/card.pdf", "takes no new files"]),
    # sim: numbers, keys, the journal, the flash folder
    (("sim", "--headless", "--displays", "0"), 2, ["--displays", "1 to 4", "not 0"]),
    (("sim", "--headless", "--displays", "9"), 2, ["--displays", "1 to 4", "not 9"]),
    (("sim", "--displays", "0"), 2, ["--displays", "1 to 4", "not 0"]),
    (("sim", "--displays", "9"), 2, ["--displays", "1 to 4", "not 9"]),
    (("sim", "--headless", "--displays", "two"), 2, ["--displays", "invalid int value"]),
    (("sim", "--headless", "--settle", "-1"), 2, ["--settle", "-1 is out of range"]),
    (("sim", "--headless", "--keys", "PLAY SHIFT"), 2, ["--keys", "SHIFT"]),
    (("sim", "--headless", "--keys", "WAIT:x"), 2, ["--keys", "WAIT"]),
    (("sim", "--headless", "--journal", "missing.txt"), 2, ["missing.txt", "no such file"]),
    (("sim", "--headless", "--journal", "dir"), 2, ["dir", "it is a directory"]),
    (("sim", "--headless", "--journal", "/dev/zero"), 2, ["cannot read /dev/zero", "it is a device"]),
    (("sim", "--headless", "--journal", "fifo"), 2, ["cannot read fifo", "it is a FIFO"]),
    (("sim", "--headless", "--journal", "huge.txt"), 2, ["huge.txt", "too large"]),
    (("sim", "--headless", "--journal", "/proc/self/mem"), 2, ["/proc/self/mem", "cannot read"]),
    (("sim", "--headless", "--flash", "notes.txt"), 2, ["notes.txt", "not a folder"]),
    (("sim", "--headless", "--flash", "notes.txt/box"), 2, ["notes.txt", "not a folder"]),
    (("sim", "--headless", "--flash", "/proc/box"), 2, ["/proc/box", "cannot write"]),
    (("sim", "--headless", "--flash", "/sys/box"), 2, ["/sys/box", "cannot write"]),
    (("sim", "--headless", "--pico", "--flash", "dir"), 2, ["--flash", "emulated Pico"]),
    (("sim", "--stream"), 2, ["--stream", "--headless"]),
    (("sim",), 2, ["needs a terminal", "--headless"]),
    (("sim", "--headless", "--uplink", "mqtt://t1:pw@127.0.0.1:1"), 2, ["--uplink", "needs --flash"]),
    (("sim", "--headless", "--flash", "dir", "--uplink", "http://x"), 2, ["--uplink", "mqtt://"]),
    (("sim", "--headless", "--flash", "dir", "--uplink", "mqtt://127.0.0.1"), 2,
     ["--uplink", "no box name and password"]),
    (("sim", "--headless", "--flash", "dir", "--uplink", "mqtt://t1:pw@127.0.0.1:0"), 2,
     ["--uplink", "its port 0 is not one of 1 to 65535"]),
    (("uplink", "mqtt://t1:pw@127.0.0.1:0", "--port", NO_PORT), 2,
     ["URL", "its port 0 is not one of 1 to 65535"]),
    # hall
    (("hall",), 2, ["ACTION", "required"]),
    (("hall", "enrol", "notes.txt", "t1"), 2, ["notes.txt", "not a folder"]),
    (("hall", "enrol", "/proc/hall", "t1"), 2, ["/proc/hall", "cannot write"]),
    (("hall", "enrol", "hall", "T 1"), 2, ["BOX", "'T 1' is not a box name"]),
    (("hall", "enrol", "hall", "hall"), 2, ["BOX", "the hall's own account"]),
    (("hall", "serve", "notes.txt"), 2, ["notes.txt", "not a folder"]),
    (("hall", "serve", "/sys/hall"), 2, ["/sys/hall", "cannot write"]),
    (("hall", "serve", "hall", "--broker", "http://x"), 2, ["--broker", "mqtt://"]),
    (("hall", "serve", "hall", "--broker", "mqtt://127.0.0.1:0"), 2,
     ["--broker", "its port 0 is not one of 1 to 65535"]),
    (("hall", "serve", "hall", "--broker", "mqtt://127.0.0.1:http"), 2,
     ["--broker", "its port 'http' is not one of 1 to 65535"]),
    (("hall", "serve", "hall", "--points", "1,x"), 2, ["--points", "whole numbers"]),
    (("hall", "mosquitto-conf", "/proc/hall"), 2, ["/proc/hall", "cannot write"]),
    (("hall", "leaf-conf", "hall", "--hub", "hall.local"), 2, ["--hub", "not HOST:PORT"]),
    (("hall", "leaf-conf", "hall", "--hub", "h:7422", "--name", "A B"), 2,
     ["--name", "not a leaf's name"]),
    (("hall", "leaf-conf", "/proc/hall", "--hub", "h:7422"), 2, ["/proc/hall", "cannot write"]),
    # watch
    (("watch", "--file", "missing.txt"), 2, ["missing.txt", "no such file"]),
    (("watch", "--file", "dir"), 2, ["dir", "it is a directory"]),
    (("watch", "--file", "empty.txt"), 1, ["no state in empty.txt", "it is empty"]),
    (("watch", "--file", "binary.bin"), 1, ["no state in binary.bin", "is a state line"]),
    (("watch", "--file", "game.txt"), 1, ["no state in game.txt", "none of its 5 lines"]),
    (("watch", "--count", "0", "--file", "game.txt"), 2, ["--count", "0 is out of range"]),
    (("watch", "--log", "-1", "--file", "game.txt"), 2, ["--log", "-1 is out of range"]),
    (("watch", "--port", NO_PORT), 2, ["no board at " + NO_PORT]),
    # report
    (("report", "missing.txt"), 2, ["missing.txt", "no such file"]),
    (("report", "dir", "-o", "dir.svg"), 2, ["dir", "it is a directory"]),
    (("report", "empty.txt", "-o", "e.svg"), 2, ["no report written", "empty.txt"]),
    (("report", "binary.bin", "-o", "b.svg"), 2, ["no report written", "binary.bin"]),
    (("report", "/dev/zero", "-o", "z.svg"), 2, ["cannot read /dev/zero", "it is a device"]),
    (("report", "fifo", "-o", "f.svg"), 2, ["cannot read fifo", "it is a FIFO"]),
    (("report", "huge.txt", "-o", "h.svg"), 2, ["huge.txt", "too large"]),
    (("report", "game.txt", "-o", "out.doc"), 2, ["out.doc", "unknown output format"]),
    (("report", "game.txt", "-o", "figs.svg"), 2, ["figs.svg", "it is a directory"]),
    (("report", "game.txt", "-o", "nofolder/g.svg"), 2, ["nofolder/g.svg", "no such folder"]),
    (("report", "game.txt", "-o", "/proc/g.svg"), 2, ["/proc/g.svg", "cannot write"]),
    # flash, pull, doctor
    (("flash", "--port", NO_PORT), 2, ["no board at " + NO_PORT]),
    (("flash", "--timeout", "-1"), 2, ["--timeout", "out of range"]),
    (("flash", "--dry-run", "--firmware", "notes.txt"), 2, ["notes.txt", "not a firmware folder"]),
    (("flash", "--dry-run", "--firmware", "/proc"), 2, ["/proc", "not a firmware folder"]),
    (("pull", "--port", NO_PORT, "got"), 2, ["no board at " + NO_PORT]),
    (("pull", "notes.txt", "--port", NO_PORT), 2, ["notes.txt", "not a folder"]),
    (("pull", "--timeout", "soon"), 2, ["--timeout", "not a number of seconds"]),
    (("pull", "--timeout", "-1"), 2, ["--timeout", "out of range"]),
    (("flash", "--dry-run", "--firmware", "dir"), 2, ["dir", "not a firmware folder"]),
    (("flash", "--pinmap", "notes.txt", "--port", NO_PORT), 2, ["notes.txt", "is not JSON"]),
    (("flash", "--pinmap", "game.txt", "--port", NO_PORT), 2, ["game.txt", "is not JSON"]),
    (("flash", "--pinmap", "missing.json", "--port", NO_PORT), 2, ["missing.json", "no such file"]),
    (("flash", "--pinmap", "huge.txt", "--port", NO_PORT), 2, ["huge.txt", "too large"]),
    (("flash", "--pinmap", "fifo", "--port", NO_PORT), 2, ["cannot read fifo", "it is a FIFO"]),
    (("flash", "--hall-settings", "fifo", "--port", NO_PORT), 2,
     ["--hall-settings", "cannot read fifo", "it is a FIFO"]),
    (("doctor", "--boot-rom", "game.txt", "--port", NO_PORT), 2,
     ["game.txt exists", "a new file name"]),
    (("doctor", "--boot-rom", "rom.bin", "--port", NO_PORT), 2, ["no board at " + NO_PORT]),
    (("doctor", "--boot-rom", "/proc/rom.bin", "--port", NO_PORT), 2, ["/proc", "takes no new files"]),
    (("sim", "--bootrom", "game.txt", "--headless"), 2, ["--bootrom", "goes with --pico"]),
    (("doctor", "--key-timeout", "-1"), 2, ["--key-timeout", "out of range"]),
    (("doctor", "--light-seconds", "1e9"), 2, ["--light-seconds", "out of range"]),
    # wiring, web
    (("wiring", "--out-of-date"), 2, ["unrecognized arguments"]),
    (("wiring", "--check", "-o", "fifo"), 2, ["cannot read fifo", "it is a FIFO"]),
    (("web", "--port", "99999"), 2, ["--port", "99999 is out of range", "0 to 65535"]),
    (("web", "--port", "-5"), 2, ["--port", "-5 is out of range"]),
    (("web", "--port", "http"), 2, ["--port", "'http' is not a whole number"]),
    (("web", "--build-only", "notes.txt"), 2, ["notes.txt", "not a folder"]),
    (("web", "--build-only", "notes.txt/site"), 2, ["notes.txt", "not a folder"]),
    (("web", "--build-only", "/proc/site"), 2, ["/proc/site", "cannot write"]),
    (("web", "--build-only", "/sys/site"), 2, ["/sys/site", "cannot write"]),
]


def run_in_process(argv, folder, env, monkeypatch, capsys):
    """cli.main as the command runs it, in this process (quicker than a new interpreter for
    each case; SAMPLES below run as real processes): (status, stderr)."""
    import tempfile
    from host_tools import cli
    monkeypatch.chdir(folder)
    monkeypatch.setattr(tempfile, "tempdir", env["TMPDIR"])
    monkeypatch.setattr(sys, "stdin", open(os.devnull))
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:    # a usage error, from argparse
        status = exc.code
    return status, capsys.readouterr().err


def check(status, err, argv, expected, words):
    command = argv[0] if argv and argv[0] != "nope" else ""
    line = one_line(err, command)
    assert status == expected, (status, line)
    for word in words:
        assert word in line, (word, line)


@pytest.mark.parametrize("argv,status,words", CASES, ids=[" ".join(c[0]) or "(none)" for c in CASES])
def test_a_slip_is_one_line_with_its_status_and_changes_nothing(home, argv, status, words,
                                                                 monkeypatch, capsys):
    folder, env = home
    before = snapshot(folder)
    got, err = run_in_process(argv, folder, env, monkeypatch, capsys)
    check(got, err, argv, status, words)
    assert snapshot(folder) == before
    assert os.listdir(env["TMPDIR"]) == []


class UsbPort:
    """What serial.tools.list_ports gives for a USB serial device."""

    def __init__(self, device, vid, pid, product=None):
        self.device, self.vid, self.pid, self.product = device, vid, pid, product


OTHER = UsbPort("/dev/ttyUSB0", 0x1A86, 0x7523, "USB Serial")   # not a Pico: never taken
PICOS = [UsbPort("/dev/ttyACM0", 0x2E8A, 5), UsbPort("/dev/ttyACM1", 0x2E8A, 5)]

# --port auto with the USB serial devices a computer lists: (command words, devices, exit
# status, words the message must hold)
PORT_CASES = [
    (("flash",), [], 2, ["no Pico running MicroPython (USB 2e8a:0005) is plugged in", "BOOTSEL"]),
    (("flash",), [OTHER], 2, ["no Pico running MicroPython (USB 2e8a:0005) is plugged in", "/dev/ttyUSB0 (1a86:7523"]),
    (("flash",), [OTHER] + PICOS, 2, ["2 Picos", "/dev/ttyACM0, /dev/ttyACM1", "--port"]),
    (("doctor",), [OTHER], 2, ["no Matchbox found", "/dev/ttyUSB0 (1a86:7523"]),
    (("doctor",), PICOS, 2, ["2 Picos", "/dev/ttyACM0, /dev/ttyACM1", "--port"]),
    (("watch",), [], 2, ["no Matchbox found", "2e8a:0005"]),
    (("watch",), [OTHER], 2, ["no Matchbox found", "/dev/ttyUSB0 (1a86:7523"]),
    (("watch",), PICOS + [OTHER], 2, ["2 Picos", "/dev/ttyACM0, /dev/ttyACM1", "--port"]),
    (("pull", "got"), [OTHER], 2, ["no Matchbox found", "/dev/ttyUSB0 (1a86:7523"]),
]


@pytest.mark.parametrize("argv,ports,status,words", PORT_CASES,
                         ids=["%s %d" % (c[0][0], i) for i, c in enumerate(PORT_CASES)])
def test_port_auto_takes_only_its_board_or_says_why_in_one_line(home, argv, ports, status, words,
                                                                 monkeypatch, capsys):
    import serial.tools.list_ports
    folder, env = home
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: list(ports))
    before = snapshot(folder)
    got, err = run_in_process(argv, folder, env, monkeypatch, capsys)
    check(got, err, argv, status, words)
    assert snapshot(folder) == before


# One slip of each command as a real process: what a person sees, from start to exit.
SAMPLES = [c for c in CASES if c[0][:1] in ((), ("nope",))] + [
    next(c for c in CASES if c[0][:1] == (command,))
    for command in ("replay", "ref", "sim", "watch", "report", "flash", "pull", "doctor",
                    "wiring", "web")] + [
    c for c in CASES if c[0] in (("sim", "--headless", "--journal", "/dev/zero"),
                                 ("sim", "--headless", "--flash", "notes.txt"),
                                 ("web", "--port", "99999"),
                                 ("web", "--build-only", "notes.txt"),
                                 ("watch", "--file", "empty.txt"))]


@pytest.mark.parametrize("argv,status,words", SAMPLES, ids=[" ".join(c[0]) or "(none)" for c in SAMPLES])
def test_a_slip_as_a_real_process(home, argv, status, words):
    folder, env = home
    before = snapshot(folder)
    proc = matchbox(argv, folder, env)
    check(proc.returncode, proc.stderr, argv, status, words)
    assert snapshot(folder) == before
    assert os.listdir(env["TMPDIR"]) == []


def test_watch_follows_a_fifo_a_stream_being_what_it_reads(home):
    """Every other command refuses a FIFO as an input file (it would wait for a writer);
    `watch --file` reads a stream by design, to its end."""
    folder, env = home
    proc = subprocess.Popen([sys.executable, "-m", "host_tools.cli", "watch", "--file", "fifo"],
                            cwd=str(folder), env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    with open(folder / "fifo", "w") as writer:      # opens once watch has opened it to read
        writer.write(STATE + "\n")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == "", err
    assert "seat 1 to act" in out


def test_doctor_without_a_board_says_so_in_its_report(home):
    folder, env = home
    proc = matchbox(("doctor", "--port", NO_PORT), folder, env)
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr
    assert "1. connection  PROBLEM  no board at %s: no such device" % NO_PORT in proc.stdout


def test_a_busy_port_for_web_is_one_line(home):
    import socket
    folder, env = home
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        proc = matchbox(("web", "--no-open", "--port", str(port)), folder, env)
    line = one_line(proc.stderr, "web")
    if "no-such-package.tgz" not in line:   # no node_modules here: that is said first
        assert proc.returncode == 2 and "cannot serve on port %d" % port in line, line
    assert os.listdir(env["TMPDIR"]) == []


# --- a terminal that cannot be used -----------------------------------------------------------

def in_a_terminal(argv, cwd, env, timeout=30):
    """Run matchbox on a pseudo-terminal; (exit status, everything it printed)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "host_tools.cli"] + list(argv), cwd=str(cwd),
                            env=env, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    os.close(master)
    try:
        status = proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("matchbox %s did not end on its own: %r" % (" ".join(argv), out))
    return status, out.decode("utf-8", "replace")


@pytest.mark.parametrize("term,words", [("dumb", ["TERM=dumb", "cannot place the cursor"]),
                                        ("no-such-terminal", ["TERM=no-such-terminal",
                                                              "not a terminal type"])])
def test_an_unusable_terminal_is_said_before_the_box_starts(home, term, words):
    folder, env = home
    before = snapshot(folder)
    status, out = in_a_terminal(("sim",), folder, dict(env, TERM=term))
    line = one_line(out, "sim")
    assert status == 2 and all(w in line for w in words), out
    assert snapshot(folder) == before and os.listdir(env["TMPDIR"]) == []


def test_a_file_for_the_flash_folder_in_a_terminal(home):
    folder, env = home
    before = snapshot(folder)
    status, out = in_a_terminal(("sim", "--flash", "notes.txt"), folder, env)
    line = one_line(out, "sim")
    assert status == 2 and "notes.txt" in line and "not a folder" in line
    assert snapshot(folder) == before


# --- Ctrl-C and SIGTERM while a command works ----------------------------------------------------

def lingering(marker):
    """Processes whose command line or working folder holds marker (children left behind)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().decode("utf-8", "replace")
            cwd = os.readlink("/proc/%s/cwd" % pid)
        except OSError:
            continue
        if marker in cmd or cwd.startswith(marker):
            found.append((pid, cmd))
    return found


HERE = os.path.dirname(os.path.abspath(__file__))
WITHIN = 60     # s: the longest a moment is waited for (a bound, never a pause)


def start(argv, cwd, env, pause_at=None):
    """matchbox in a session of its own (stdin and stdout pipes left open), as a terminal runs
    it; with pause_at, paused inside the first import of that module (tests/pause_at_import.py)
    with proc.paused the pipe that says so."""
    command = [sys.executable, "-m", "host_tools.cli"]
    pass_fds = ()
    if pause_at:
        read, write = os.pipe()
        env = dict(env, PAUSE_AT=pause_at, PAUSE_FD=str(write))
        command = [sys.executable, os.path.join(HERE, "pause_at_import.py")]
        pass_fds = (write,)
    proc = subprocess.Popen(command + list(argv), cwd=str(cwd), env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, pass_fds=pass_fds)
    proc.paused = None
    if pause_at:
        os.close(write)
        proc.paused = read
    return proc


def paused(proc):
    """The moment: the process says it is inside the import it was told to pause in."""
    return bool(select.select([proc.paused], [], [], 0.05)[0]) and os.read(proc.paused, 1) == b"!"


def printed(proc):
    """The moment: the process has printed a line (a state line, the JSON of a step)."""
    return bool(select.select([proc.stdout], [], [], 0.05)[0]) and bool(proc.stdout.readline())


def child_running(word):
    """The moment: a child of the process whose command line holds word runs."""
    def ready(proc):
        return any(word in cmd for _, cmd in children(proc.pid))
    return ready


def children(pid):
    """[(pid, command line)] of the processes whose parent is pid."""
    found = []
    for child in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % child) as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % child, "rb") as f:
                cmd = f.read().decode("utf-8", "replace")
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found.append((int(child), cmd))
    return found


def stopped(proc, sig, ready):
    """Send sig to the whole session of proc, as a terminal sends Ctrl-C, once ready(proc) (a
    condition, looked at until it holds, within WITHIN s); (status, stderr)."""
    deadline = time.monotonic() + WITHIN
    while not ready(proc):
        assert proc.poll() is None, "it ended before the moment: %s" % proc.stderr.read()
        assert time.monotonic() < deadline, "the moment did not come within %d s" % WITHIN
    os.killpg(proc.pid, sig)
    _, err = proc.communicate(timeout=WITHIN)
    if proc.paused is not None:
        os.close(proc.paused)
    return proc.returncode, err


@pytest.fixture
def long_record(home):
    folder, env = home
    path = folder / "long.txt"
    # about 2 MB, all legal: several seconds on the MicroPython unix port, read while it runs
    path.write_text("players 3\n" + "play 5\nundo\n" * 160000)
    return path


def test_ctrl_c_in_a_micropython_replay(home, long_record):
    folder, env = home
    before = snapshot(folder)
    proc = start(("replay", "--runtime", "micropython", long_record.name), folder, env)
    status, err = stopped(proc, signal.SIGINT, child_running("replay_portable"))
    assert status == INTERRUPTED and one_line(err, "replay") == "matchbox replay: interrupted"
    assert "MicroPython" not in err and "KeyboardInterrupt" not in err
    assert snapshot(folder) == before
    gone(str(long_record))


def gone(marker):
    """No process left behind whose command line or folder holds marker (within WITHIN s)."""
    deadline = time.monotonic() + WITHIN
    while lingering(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lingering(marker) == []


# a state line as the box prints it after each action (`matchbox watch` shows it)
STATE = ('{"players": 3, "turn": 1, "table": null, "revolution": false, "strongest": "F", '
         '"seats": [{"seat": 1, "cards": 15, "sticks": 1, "rank": null}, {"seat": 2, "cards": '
         '15, "sticks": 1, "rank": null}, {"seat": 3, "cards": 15, "sticks": 1, "rank": null}], '
         '"supply": 37, "finished": false, "ranking": []}')

# the setup of a 3-player game, then a play: the box prints a state line, then waits an hour
PLAYING = " ".join(["3"] + ["PLAY"] * 9 + ["5", "PLAY", "WAIT:3600000"])


@pytest.mark.parametrize("sig,status,line", [
    (signal.SIGINT, INTERRUPTED, "matchbox sim: interrupted"),
    (signal.SIGTERM, TERMINATED, "matchbox sim: stopped: terminated (SIGTERM)")])
def test_a_signal_while_the_simulated_box_runs(home, sig, status, line):
    folder, env = home
    before = snapshot(folder)
    proc = start(("sim", "--headless", "--stream", "--keys", PLAYING), folder, env)
    got, err = stopped(proc, sig, printed)
    assert got == status and one_line(err, "sim") == line, err
    assert snapshot(folder) == before
    gone(env["TMPDIR"])                          # its MicroPython process
    assert os.listdir(env["TMPDIR"]) == []        # the box's temporary flash is gone


def pico_ready():
    from host_tools.virtual import emulated_pico
    return emulated_pico.missing() is None


# (command words, the moment the signal is sent, the line said): every moment is one the
# program itself makes known, never a time
STAGES = [
    (("report", "game.txt", "-o", "game.png"), "host_tools.resources",
     "matchbox report: interrupted"),                       # its own modules loading
    (("report", "game.txt", "-o", "game.png"), "numpy", "matchbox report: interrupted"),
    (("card", "-o", "card.pdf"), "numpy", "matchbox card: interrupted"),
    (("card", "-o", "card.pdf"), "matplotlib.backends.backend_pdf", "matchbox card: interrupted"),
    (("hall", "enrol", "hall", "t1"), "pwdlib.hashers.argon2", "matchbox hall: interrupted"),
    (("watch", "--file", "-"), printed, "matchbox watch: stopped"),   # following stdin
    (("sim", "--headless", "--pico", "--keys", "WAIT:600000"), child_running("node"),
     "matchbox sim: interrupted"),                           # the emulator starting
    (("sim", "--headless", "--pico", "--stream", "--keys", PLAYING), printed,
     "matchbox sim: interrupted"),                           # the emulated box running
]


@pytest.mark.parametrize("argv,moment,line", STAGES, ids=[
    "report loading", "report inside numpy's import", "card inside numpy's import",
    "card drawing", "enrol hashing", "watch stdin", "sim --pico starting", "sim --pico running"])
def test_ctrl_c_at_other_stages(home, argv, moment, line):
    if "--pico" in argv and not pico_ready():
        from host_tools.virtual import emulated_pico
        pytest.skip("emulated Pico: %s" % emulated_pico.missing())
    folder, env = home
    before = snapshot(folder)
    proc = start(argv, folder, env, pause_at=moment if isinstance(moment, str) else None)
    if argv[0] == "watch":       # a state line for it to show: then it waits for the next
        proc.stdin.write(STATE + "\n")
        proc.stdin.flush()
    status, err = stopped(proc, signal.SIGINT, paused if isinstance(moment, str) else moment)
    assert status == INTERRUPTED, err
    assert one_line(err, argv[0]) == line
    assert snapshot(folder) == before
    gone(str(folder))
    gone(env["TMPDIR"])


def test_ctrl_c_stops_the_hall_as_a_server_is_stopped(home):
    """Ctrl-C is how a server is stopped: said plainly, `matchbox hall: stopped`, status 130
    (docs/hall.md), its broker gone with it."""
    from hall_helpers import free_port
    folder, env = home
    proc = start(("hall", "serve", "hall", "--port", "0", "--mqtt-port", str(free_port()),
                   "--audience-port", "0"), folder, env)
    status, err = stopped(proc, signal.SIGINT, printed)
    # its last line; before it only what the hall says as it starts (the page's MQTT client
    # got into the cache), nothing of its brokers ending or being started again
    assert status == INTERRUPTED and err.splitlines()[-1] == "matchbox hall: stopped", err
    assert "Traceback" not in err and "ended" not in err and "again" not in err, err
    gone(str(folder))


def test_ctrl_c_a_library_swallows_still_ends_the_command_interrupted(home, monkeypatch, capsys):
    """Ctrl-C landing in a finaliser, where Python cannot raise it (it printed "Exception
    ignored ... KeyboardInterrupt" and card went on to exit 0): one line, 130, no card."""
    from host_tools.commands import card
    folder, env = home
    drawn = card.write_pdf

    class Finaliser:
        def __del__(self):
            signal.raise_signal(signal.SIGINT)

    def drawing(*args):
        Finaliser()                    # made and let go: its __del__ runs here
        return drawn(*args)
    monkeypatch.setattr(card, "write_pdf", drawing)
    before = snapshot(folder)
    status, err = run_in_process(("card", "-o", "card.pdf"), folder, env, monkeypatch, capsys)
    assert status == INTERRUPTED and err == "matchbox card: interrupted\n"
    assert snapshot(folder) == before
    # the note was that command's: what this process writes next is written (it once made
    # every later write_whole of the process raise KeyboardInterrupt)
    from host_tools import errors, files
    assert not errors.interrupted()
    files.write_whole(os.path.join(folder, "after.txt"), b"written")
    with open(os.path.join(folder, "after.txt"), "rb") as f:
        assert f.read() == b"written"


def test_ctrl_c_inside_an_import_that_turns_it_into_an_import_error(home, monkeypatch, capsys):
    """As numpy's import does ("ImportError: initialization failed", once status 3): the
    report's drawing modules loaded anew, Ctrl-C inside."""
    import importlib.abc
    folder, env = home

    class Numpy(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "host_tools.reports.plot":
                try:
                    signal.raise_signal(signal.SIGINT)
                except KeyboardInterrupt:
                    raise ImportError("initialization failed") from None
            return None
    monkeypatch.delitem(sys.modules, "host_tools.reports.plot", raising=False)
    monkeypatch.setattr(sys, "meta_path", [Numpy()] + sys.meta_path)
    before = snapshot(folder)
    status, err = run_in_process(("report", "game.txt", "-o", "g.svg"), folder, env, monkeypatch,
                                 capsys)
    assert status == INTERRUPTED and err == "matchbox report: interrupted\n"
    assert snapshot(folder) == before


# --- a wrong or swapped UF2 or boot ROM for --pico ---------------------------------------------

def uf2_blocks(count=1, family=0xE48BFF56, address=0x10000000):
    return blocks([(address + 256 * n, bytes(256)) for n in range(count)], family)


def bootrom():
    data = bytearray(16384)
    data[0x10:0x13] = b"Mu\x01"
    return bytes(data)


def pico_cases(folder):
    (folder / "pico.uf2").write_bytes(micropython_uf2())
    (folder / "app.uf2").write_bytes(uf2_blocks(4))
    (folder / "rp2350.uf2").write_bytes(uf2_blocks(4, family=0xE48BFF59))
    (folder / "outside.uf2").write_bytes(uf2_blocks(address=0x20000000))
    (folder / "bootrom.bin").write_bytes(bootrom())
    return [
        ("bootrom.bin", "pico.uf2", ["the UF2 ", "bootrom.bin", "not a UF2 file", "boot ROM?"]),
        ("notes.txt", "bootrom.bin", ["the UF2 ", "notes.txt", "not a UF2 file"]),
        ("rp2350.uf2", "bootrom.bin", ["the UF2 ", "rp2350.uf2", "not for the RP2040", "0xe48bff59"]),
        ("outside.uf2", "bootrom.bin", ["the UF2 ", "outside.uf2", "outside the Pico's flash"]),
        ("app.uf2", "bootrom.bin", ["the UF2 ", "app.uf2", "not MicroPython"]),
        ("pico.uf2", "pico.uf2", ["the boot ROM ", "pico.uf2", "not the RP2040 boot ROM", "is it the UF2?"]),
        ("pico.uf2", "notes.txt", ["the boot ROM ", "notes.txt", "not the RP2040 boot ROM"]),
        ("pico.uf2", "huge.txt", ["the boot ROM ", "huge.txt", "more than 16384"]),
        ("pico.uf2", "game.txt", ["the boot ROM ", "game.txt", "not the RP2040 boot ROM"]),
    ]


def test_a_wrong_or_swapped_uf2_or_boot_rom_is_named_before_node_runs(home):
    from host_tools.virtual import emulated_pico
    if not emulated_pico.node() or not os.path.isdir(
            os.path.join(emulated_pico.NODE_DIR, "node_modules", "rp2040js")):
        pytest.skip("needs Node.js and rp2040js (make pico-js): they are checked first")
    folder, env = home
    cases = pico_cases(folder)
    before = snapshot(folder)
    for uf2, rom, words in cases:
        started = time.monotonic()
        proc = matchbox(("sim", "--headless", "--pico", "--uf2", str(folder / uf2), "--keys", "3"),
                        folder, dict(env, MATCHBOX_PICO_BOOTROM=str(folder / rom)))
        line = one_line(proc.stderr, "sim")
        assert proc.returncode == 2 and line.startswith("matchbox sim: --pico: "), line
        assert all(w in line for w in words), (words, line)
        assert "node" not in line.lower() and time.monotonic() - started < 20
    assert snapshot(folder) == before

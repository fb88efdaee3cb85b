"""End to end: `matchbox flash` / `matchbox pull` against a virtual Pico (the MicroPython
unix port on a pty, see host_tools/virtual/pty_board.py), plus the virtual Pico itself under mpremote."""
import hashlib
import os
import pty
import subprocess
import sys
import threading
import time

import pytest
import serial

from host_tools import cli
from host_tools.commands import flash, pull
from host_tools.device import board_info, build
from host_tools.device.serial_board import SerialBoard
from host_tools.virtual.pty_board import PtyBoard

MPREMOTE = os.path.join(os.path.dirname(sys.executable), "mpremote")


def _write(path, text):
    os.makedirs(os.path.dirname(str(path)), exist_ok=True)
    with open(str(path), "w") as f:
        f.write(text)


def _snapshot(folder):
    """{relative path: (bytes, mtime_ns)} of every file under folder."""
    snap = {}
    for dirpath, _, files in os.walk(str(folder)):
        for name in files:
            full = os.path.join(dirpath, name)
            with open(full, "rb") as f:
                snap[os.path.relpath(full, str(folder))] = (f.read(), os.stat(full).st_mtime_ns)
    return snap


def _sha(path):
    with open(str(path), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.fixture
def fw(tmp_path):
    """A small firmware tree shaped like the real one (pin map symlinked from hardware/)."""
    root = tmp_path / "firmware"
    _write(root / "main.py", "import box.hello\nprint('box', box.hello.X)\n")
    _write(root / "lib/box/__init__.py", '"""Box."""\n')
    _write(root / "lib/box/hello.py", "X = 42\n")
    _write(root / "lib/tycoon/__init__.py", "")
    _write(root / "lib/tycoon/rules.py", "def cost(n):\n    return n * 2\n")
    _write(tmp_path / "hardware/pinmap.json", '{"sda": 4, "scl": 5}\n')
    os.symlink(os.path.join("..", "hardware", "pinmap.json"), str(root / "pinmap.json"))
    return root


@pytest.fixture
def pico(tmp_path):
    with PtyBoard(str(tmp_path / "flash")) as board:
        yield board


def _matchbox(capsys, command, *argv):
    """Run `matchbox COMMAND ARGV...` as the command does (its messages in one place)."""
    status = cli.main([command] + list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _flash(capsys, pico, fw, *extra):
    return _matchbox(capsys, "flash", "--port", pico.port, "--firmware", str(fw), "--timeout", "5", *extra)


def _mpremote(pico, *args):
    proc = subprocess.run([MPREMOTE, "connect", pico.port] + list(args),
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


def test_flash_copies_verifies_and_the_board_runs_it(capsys, pico, fw, tmp_path):
    status, out, err = _flash(capsys, pico, fw)
    assert status == 0, out + err
    staged = build.stage(str(tmp_path / "expect"), root=str(fw))
    flash_dir = tmp_path / "flash"
    for name, digest in staged:
        assert _sha(flash_dir / name) == digest, name
    assert not (flash_dir / "lib/box/hello.py").exists()
    copied = [ln for ln in out.splitlines() if ln.startswith("[")]
    assert len(copied) == len(staged) == 6
    assert "[%d/6] main.py (" % 6 in copied[-1]  # main.py goes last
    assert "verified 6 files on the board by sha256 (6 copied, 0 removed" in out
    # the .mpy bytecode really loads on MicroPython, from /lib like on a Pico
    code, text = _mpremote(pico, "exec", "import box.hello, tycoon.rules; print(box.hello.X, tycoon.rules.cost(4))")
    assert code == 0 and text.strip() == "42 8", text


def test_reflash_copies_only_the_changed_file(capsys, pico, fw):
    assert _flash(capsys, pico, fw)[0] == 0
    _write(fw / "lib/box/hello.py", "X = 43\n")
    status, out, err = _flash(capsys, pico, fw)
    assert status == 0, out + err
    assert [ln for ln in out.splitlines() if ln.startswith("[")] == ["[1/1] lib/box/hello.mpy (%d bytes)"
                                                                     % len(_staged_bytes(fw, "lib/box/hello.mpy"))]
    assert "(1 copied, 0 removed, 5 already up to date)" in out
    code, text = _mpremote(pico, "exec", "import box.hello; print(box.hello.X)")
    assert text.strip() == "43", text


def _staged_bytes(fw, name):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        build.stage(tmp, root=str(fw))
        with open(os.path.join(tmp, name), "rb") as f:
            return f.read()


def test_dry_run_changes_nothing(capsys, pico, fw, tmp_path):
    assert _flash(capsys, pico, fw)[0] == 0
    _write(fw / "lib/box/hello.py", "X = 7\n")
    _write(tmp_path / "flash/lib/box/old.py", "stale = True\n")
    before = _snapshot(tmp_path / "flash")
    status, out, err = _flash(capsys, pico, fw, "--dry-run")
    assert status == 0, out + err
    assert "would copy [1/1] lib/box/hello.mpy" in out
    assert "would remove lib/box/old.py (not in this build)" in out
    assert "nothing changed on the board" in out
    assert _snapshot(tmp_path / "flash") == before


def test_dry_run_without_a_board_lists_what_a_fresh_board_gets(capsys, fw, tmp_path):
    status, out, err = _matchbox(capsys, "flash", "--port", str(tmp_path / "no-such-port"),
                                 "--firmware", str(fw), "--dry-run")
    assert status == 0, out + err
    first = out.splitlines()[0]
    assert first.startswith("dry run: no board to compare with (no board at %s: no such device"
                            % (tmp_path / "no-such-port"))
    assert first.endswith("so nothing was compared; a fresh Pico (MicroPython, no box on it yet) "
                          "would get these 6 files, modules as mpy v%d.%d bytecode:"
                          % build.mpy_version()[:2])
    copied = [ln for ln in out.splitlines() if ln.startswith("would copy [")]
    staged = dict(build.stage(str(tmp_path / "expect"), root=str(fw)))
    assert sorted(ln.split()[3] for ln in copied) == sorted(staged)
    assert copied[-1].startswith("would copy [6/6] main.py (")
    assert "dry run: 6 to copy to a fresh board" in out and err == ""


def test_stale_firmware_removed_games_and_other_files_kept(capsys, pico, fw, tmp_path):
    flash_dir = tmp_path / "flash"
    keep = {
        "games/current.txt": "journal of the running game\n",
        "games/archive/game-001.txt": "a finished game\n",
        "games/archive/main.py": "not firmware\n",
        "lib/other/keep.py": "someone else's library\n",
        "notes.txt": "user file\n",
    }
    for name, text in keep.items():
        _write(flash_dir / name, text)
    _write(flash_dir / "lib/box/hello.py", "X = 'old source that would shadow the .mpy'\n")
    _write(flash_dir / "lib/tycoon/gone.mpy", "old module")
    _write(flash_dir / "lib/tycoon/sub/deep.py", "old")
    status, out, err = _flash(capsys, pico, fw)
    assert status == 0, out + err
    for name, text in keep.items():
        assert (flash_dir / name).read_text() == text, name
    for stale in ("lib/box/hello.py", "lib/tycoon/gone.mpy", "lib/tycoon/sub/deep.py"):
        assert not (flash_dir / stale).exists(), stale
        assert "remove %s (not in this build)" % stale in out
    code, text = _mpremote(pico, "exec", "import box.hello; print(box.hello.X)")
    assert text.strip() == "42", text


def test_every_update_keeps_games_setup_pin_map_and_the_makers_files(capsys, pico, fw, tmp_path):
    """An update of the box (a new module, a new main.py) on a box that has played: the games,
    the setup, the board's own pin map and every file of the maker's stay byte for byte; only
    the box's changed files are copied."""
    flash_dir = tmp_path / "flash"
    assert _flash(capsys, pico, fw)[0] == 0
    theirs = {
        "games/current.txt": b"players 3\nhands 4 4 4\nplay 5\n",
        "games/setup.txt": b"players 3\n",
        "games/archive/game-001.txt": b"a finished game\n",
        "pinmap.json": b'{"sda": 6, "scl": 7}\n',       # edited on the board by its maker
        "boot.py": b"print('the maker boots first')\n",
        "lib/sensor/__init__.py": b"# the maker's own library\n",
        "notes.txt": b"\x00\xffbinary notes\n",
    }
    for name, data in theirs.items():
        (flash_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (flash_dir / name).write_bytes(data)
    before = {name: (flash_dir / name).stat().st_mtime_ns for name in theirs}
    _write(fw / "lib/box/hello.py", "X = 44\n")
    _write(fw / "main.py", "import box.hello\nprint('box 2', box.hello.X)\n")
    time.sleep(0.01)
    status, out, err = _flash(capsys, pico, fw)
    assert status == 0, out + err
    assert "pin map: the board's own pinmap.json kept (--pinmap FILE replaces it)" in out
    assert not [ln for ln in out.splitlines() if ln.startswith("remove")], out
    assert sorted(ln.split()[1] for ln in out.splitlines() if ln.startswith("[")) == [
        "lib/box/hello.mpy", "main.py"]
    for name, data in theirs.items():
        assert (flash_dir / name).read_bytes() == data, name
        assert (flash_dir / name).stat().st_mtime_ns == before[name], name   # not even rewritten
    code, text = _mpremote(pico, "exec", "import box.hello; print(box.hello.X)")
    assert text.strip() == "44", text


def test_pinmap_replaces_the_boards_own_and_a_bad_one_changes_nothing(capsys, pico, fw, tmp_path):
    from host_tools.resources import PINMAP
    flash_dir = tmp_path / "flash"
    assert _flash(capsys, pico, fw)[0] == 0
    (flash_dir / "pinmap.json").write_bytes(b'{"sda": 6}\n')
    status, out, err = _flash(capsys, pico, fw, "--pinmap", PINMAP)
    assert status == 0, out + err
    with open(PINMAP, "rb") as f:
        assert (flash_dir / "pinmap.json").read_bytes() == f.read()
    before = _snapshot(flash_dir)
    (tmp_path / "bad.json").write_text('{"i2c": {"sda": 4}}')
    (tmp_path / "text.json").write_text("not json")
    for path, words in ((tmp_path / "bad.json", "is not a pin map like hardware/pinmap.json"),
                        (tmp_path / "text.json", "is not JSON"),
                        (tmp_path / "none.json", "no such file")):
        status, out, err = _flash(capsys, pico, fw, "--pinmap", str(path))
        assert status == 2 and out == "" and err.count("\n") == 1, err
        assert err.startswith("matchbox flash: ") and words in err, err
    assert _snapshot(flash_dir) == before


def test_refuses_a_micropython_older_than_the_box_supports(capsys, fw, tmp_path):
    with PtyBoard(str(tmp_path / "flash"), version="1.27.0") as old:
        status, out, err = _flash(capsys, old, fw)
    assert status == 2
    assert err == ("matchbox flash: refusing to flash: the board runs MicroPython 1.27.0, and the "
                   "box needs v1.28.0 or later: download it for your board from "
                   "https://micropython.org/download/RPI_PICO/ (Pico) or "
                   "https://micropython.org/download/RPI_PICO_W/ (Pico W)\n")
    assert sorted(os.listdir(str(tmp_path / "flash"))) == []


def test_source_flash_deploys_py(capsys, pico, fw, tmp_path):
    assert _flash(capsys, pico, fw)[0] == 0
    status, out, err = _flash(capsys, pico, fw, "--source")
    assert status == 0, out + err
    flash_dir = tmp_path / "flash"
    assert (flash_dir / "lib/box/hello.py").read_bytes() == (fw / "lib/box/hello.py").read_bytes()
    assert not (flash_dir / "lib/box/hello.mpy").exists()
    assert "no .mpy check" in out


def test_verify_mismatch_fails_loudly(capsys, pico, fw, monkeypatch):
    real_write = SerialBoard.write_file

    def corrupting_write(self, path, data):
        if path.endswith("rules.mpy"):
            data = data[:-1] + bytes([data[-1] ^ 1])
        return real_write(self, path, data)

    monkeypatch.setattr(SerialBoard, "write_file", corrupting_write)
    status, out, err = _flash(capsys, pico, fw)
    assert status == 1
    assert "verify failed: lib/tycoon/rules.mpy on the board has sha256" in err
    assert "lib/box/hello.mpy" not in err


def test_refuses_a_board_with_another_mpy_version(capsys, pico, fw, tmp_path, monkeypatch):
    monkeypatch.setattr(build, "mpy_version", lambda: (5, 0))
    status, out, err = _flash(capsys, pico, fw)
    assert status == 2
    assert "refusing to flash" in err and "loads mpy v6" in err and "mpy v5.0" in err and "--source" in err
    assert not (tmp_path / "flash" / "lib").exists()
    # --source skips the check
    assert _flash(capsys, pico, fw, "--source")[0] == 0


def test_incompatibility_rules():
    board = {"version": (1, 29, 0), "mpy": 6 | (3 << 8) | (4 << 10), "platform": "rp2", "machine": ""}
    assert board_info.incompatibility(board, (6, 3)) is None
    assert board_info.incompatibility(board, (6, 1)) is None  # sub-version only matters for native code
    assert "loads mpy v5" in board_info.incompatibility(dict(board, mpy=5 | (4 << 10)), (6, 3))
    assert "cannot import .mpy" in board_info.incompatibility(dict(board, mpy=None), (6, 3))
    assert board_info.incompatibility(board, (6, 3), ["armv6m"]) is None
    assert "native code" in board_info.incompatibility(board, (6, 3), ["xtensa"])


def test_flash_full_names_free_space(capsys, fw, tmp_path):
    flash_dir = tmp_path / "small"
    _write(flash_dir / "games/archive/game-001.txt", "x" * 500)
    need = sum(len(_staged_bytes(fw, name)) for name, _ in build.stage(str(tmp_path / "s"), root=str(fw)))
    with PtyBoard(str(flash_dir), capacity=500 + need // 2) as small:
        status, out, err = _flash(capsys, small, fw)
    assert status == 2
    assert "flash full while writing" in err
    assert "bytes free on the board" in err
    assert (flash_dir / "games/archive/game-001.txt").read_text() == "x" * 500


def test_pull_fetches_journal_and_archive_and_changes_nothing(capsys, pico, tmp_path):
    flash_dir = tmp_path / "flash"
    _write(flash_dir / "games/current.txt", "R1 A plays 3\n")
    _write(flash_dir / "games/archive/game-001.txt", "finished game one\n")
    _write(flash_dir / "games/archive/2024/game-002.txt", "finished game two\n")
    _write(flash_dir / "lib/box/hello.py", "X = 1\n")
    before = _snapshot(flash_dir)
    dest = tmp_path / "pulled"
    status, out, err = _matchbox(capsys, "pull", "--port", pico.port, "--timeout", "5", str(dest))
    assert status == 0, out + err
    assert (dest / "current.txt").read_text() == "R1 A plays 3\n"
    assert (dest / "archive/game-001.txt").read_text() == "finished game one\n"
    assert (dest / "archive/2024/game-002.txt").read_text() == "finished game two\n"
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "archive/2024/game-002.txt", "archive/game-001.txt", "current.txt"]
    assert "pulled 3 files" in out
    assert _snapshot(flash_dir) == before
    # a second pull of a changed archived game keeps the first copy
    _write(flash_dir / "games/archive/game-001.txt", "game one, box was reset\n")
    assert _matchbox(capsys, "pull", "--port", pico.port, str(dest))[0] == 0
    assert (dest / "archive/game-001.txt").read_text() == "finished game one\n"
    assert (dest / "archive/game-001-2.txt").read_text() == "game one, box was reset\n"


def test_pull_with_no_games(capsys, pico, tmp_path):
    status, out, err = _matchbox(capsys, "pull", "--port", pico.port, str(tmp_path / "pulled"))
    assert status == 0, err
    assert "no games on the board" in out
    assert not (tmp_path / "pulled").exists()


@pytest.mark.parametrize("command", ["flash", "pull"])
def test_missing_port_is_a_clear_error(capsys, command, tmp_path):
    port = str(tmp_path / "ttyACM9")
    status, out, err = _matchbox(capsys, command, "--port", port)
    assert status == 2
    assert err.startswith("matchbox %s: no board at %s: no such device" % (command, port))
    assert len(err.strip().splitlines()) == 1


def test_matchbox_command_dispatches_to_flash_and_pull(capsys, tmp_path):
    for command in ("flash", "pull"):
        status = cli.main([command, "--port", str(tmp_path / "nothing")])
        assert status == 2
        assert "no board at" in capsys.readouterr().err


def test_auto_with_no_board(capsys, monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    status, out, err = _matchbox(capsys, "flash")
    assert status == 2
    assert err.startswith("matchbox flash: no Pico running MicroPython (USB 2e8a:0005) is plugged in")


def test_dry_run_with_no_pico_plugged_in_says_so_once(capsys, fw, monkeypatch):
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [])
    status, out, err = _matchbox(capsys, "flash", "--firmware", str(fw), "--dry-run")
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == ("dry run: no Pico is plugged in, so nothing was compared; a fresh Pico "
                        "(MicroPython, no box on it yet) would get these 6 files, modules as "
                        "mpy v%d.%d bytecode:" % build.mpy_version()[:2])
    assert out.count("plugged in") == 1 and "2e8a" not in out
    assert [ln.split()[:2] for ln in lines[1:-1]] == [["would", "copy"]] * 6


def test_busy_port(capsys, pico, fw):
    holder = serial.Serial(pico.port, exclusive=True)
    try:
        status, out, err = _flash(capsys, pico, fw)
    finally:
        holder.close()
    assert status == 2
    assert "is busy" in err


class _FakeDevice:
    """A pty that is not MicroPython: silent, or echoing everything like `cat`."""

    def __init__(self, echo):
        self.master, self.slave = pty.openpty()
        self.port = os.ttyname(self.slave)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(echo,), daemon=True)
        self.thread.start()

    def _run(self, echo):
        import select
        while not self.stop.is_set():
            r, _, _ = select.select([self.master], [], [], 0.05)
            if r:
                data = os.read(self.master, 1024)
                if echo:
                    os.write(self.master, data)

    def close(self):
        self.stop.set()
        self.thread.join(2)
        os.close(self.master)
        os.close(self.slave)


@pytest.mark.parametrize("echo", [False, True])
def test_device_that_is_not_micropython(capsys, echo, fw):
    device = _FakeDevice(echo)
    try:
        started = time.monotonic()
        status, out, err = _matchbox(capsys, "flash", "--port", device.port, "--firmware", str(fw), "--timeout", "1")
        elapsed = time.monotonic() - started
    finally:
        device.close()
    assert status == 2
    assert "does not answer as MicroPython" in err
    assert elapsed < 10


def test_mip_install_of_package_json(pico, tmp_path):
    """package.json's format works with `mpremote mip install --target=` (from a checkout)."""
    repo = tmp_path / "repo"
    fw = repo / "firmware"
    _write(fw / "main.py", "print('main')\n")
    _write(fw / "lib/box/version.py", 'VERSION = "9.9.9"\n')
    _write(repo / "hardware/pinmap.json", "{}\n")
    os.symlink(os.path.join("..", "hardware", "pinmap.json"), str(fw / "pinmap.json"))
    _write(repo / "package.json", build.package_json_text(str(repo)))
    code, text = _mpremote(pico, "mip", "install", "--target=", str(repo / "package.json"))
    assert code == 0, text
    flash_dir = tmp_path / "flash"
    assert sorted(p.relative_to(flash_dir).as_posix() for p in flash_dir.rglob("*") if p.is_file()) == [
        "lib/box/version.py", "main.py", "pinmap.json"]
    assert (flash_dir / "pinmap.json").read_text() == "{}\n"


def test_virtual_pico_under_mpremote(pico, tmp_path):
    """Paths map into the flash folder (and cannot leave it); soft reset restarts cleanly."""
    src = tmp_path / "hello.py"
    src.write_text("print('hello from lib')\n")
    assert _mpremote(pico, "fs", "mkdir", ":lib")[0] == 0
    assert _mpremote(pico, "fs", "cp", str(src), ":lib/hello.py")[0] == 0
    assert (tmp_path / "flash/lib/hello.py").read_text() == src.read_text()
    code, text = _mpremote(pico, "exec", "import hello")
    assert text.strip() == "hello from lib"
    code, text = _mpremote(pico, "exec", "x = 5", "soft-reset", "exec", "print('x' in globals())")
    assert code == 0 and text.strip() == "False", text
    code, text = _mpremote(pico, "exec", "f = open('/../../escape.txt', 'w'); f.write('z'); f.close()")
    assert code == 0, text
    assert (tmp_path / "flash/escape.txt").read_text() == "z"
    code, text = _mpremote(pico, "exec", "import os; print(os.getcwd(), sorted(os.listdir('/')))")
    assert text.strip() == "/ ['escape.txt', 'lib']", text
    assert pico.reboots >= 1


def test_virtual_pico_stops_its_process(tmp_path):
    with PtyBoard(str(tmp_path / "flash")) as board:
        pid = board._proc.pid
        os.kill(pid, 0)  # running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_pull_saves_the_plain_game_record_of_a_journal(capsys, pico, tmp_path):
    from tycoon import notation
    texts = ["players 2", "dealer 1", "expansion none", "revolution 5", "sticks 40",
             "hands 15 15", "1: play 3", "2: play 5", "undo", "2: pass"]
    journal = b"".join([notation.tagged(i + 1, t) for i, t in enumerate(texts)])
    flash_dir = tmp_path / "flash"
    (flash_dir / "games").mkdir(parents=True)
    (flash_dir / "games/current.txt").write_bytes(journal)
    status, out, err = _matchbox(capsys, "pull", "--port", pico.port, str(tmp_path / "plain"))
    assert status == 0 and err == "", err
    assert (tmp_path / "plain/current.txt").read_text() == (
        "players 2\ndealer 1\nexpansion none\nrevolution 5\nsticks 40\nhands 15 15\n"
        "1: play 3\n2: pass\n")
    status, out, err = _matchbox(capsys, "pull", "--raw", "--port", pico.port,
                                 str(tmp_path / "raw"))
    assert status == 0 and (tmp_path / "raw/current.txt").read_bytes() == journal
    # damage: saved as it is, the line named
    (flash_dir / "games/current.txt").write_bytes(journal[:-3])
    status, out, err = _matchbox(capsys, "pull", "--port", pico.port, str(tmp_path / "torn"))
    assert status == 0 and "/games/current.txt:10: syntax: " in err
    assert (tmp_path / "torn/current.txt").read_bytes() == journal[:-3]


def test_hall_settings_go_on_the_board_and_stay(capsys, pico, fw, tmp_path):
    settings = tmp_path / "t1.json"
    settings.write_text('{"host": "192.168.4.2", "port": 1883, "box": "t1", "password": "pw"}\n')
    status, out, err = _flash(capsys, pico, fw, "--hall-settings", str(settings))
    assert status == 0, out + err
    board_file = tmp_path / "flash" / "hall.json"
    assert board_file.read_bytes() == settings.read_bytes()
    assert "verified 7 files on the board by sha256" in out
    status, out, err = _flash(capsys, pico, fw)          # a flash without it leaves it be
    assert status == 0 and board_file.read_bytes() == settings.read_bytes()
    assert "hall.json" not in out


@pytest.mark.parametrize("text,why", [
    ('{"host": "h", "box": "t1"}', "password is not a string"), ("nope", "not JSON")])
def test_bad_hall_settings_are_one_line_and_nothing_is_copied(capsys, pico, fw, tmp_path, text,
                                                             why):
    settings = tmp_path / "bad.json"
    settings.write_text(text)
    status, out, err = _flash(capsys, pico, fw, "--hall-settings", str(settings))
    assert status == 2 and out == ""
    assert err.startswith("matchbox flash: --hall-settings: ") and why in err
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "flash" / "lib").exists()


def test_pull_of_a_record_typed_by_hand_before_and_after_the_box_took_it(capsys, pico, tmp_path):
    import json
    import sys
    from tycoon import notation, writer
    typed = b"# on paper\r\nPlayers 2\r\nhands 5 5  \r\n1: PLAY 3\r\nundo\r\nplay 3"   # no last LF
    flash_dir = tmp_path / "flash"
    (flash_dir / "games").mkdir(parents=True)
    (flash_dir / "games/current.txt").write_bytes(typed)
    # copied on, the box not powered up since: the typed game, its last line as typed
    status, out, err = _matchbox(capsys, "pull", "--port", pico.port, str(tmp_path / "before"))
    assert status == 0 and err == "", err
    game, error = notation.load(typed.decode().splitlines())
    assert error is None and len(game) == 1
    assert (tmp_path / "before/current.txt").read_text() == notation.write(game)
    # powered up and played on: the box's record, pulled plain, replays to the box's state
    box = subprocess.run([sys.executable, "-m", "host_tools.cli", "sim", "--headless", "--flash",
                          str(flash_dir), "--keys", "4 PLAY"], capture_output=True, text=True,
                         timeout=120)
    assert box.returncode == 0, box.stderr
    box_state = json.loads(box.stdout)["state"]
    status, out, err = _matchbox(capsys, "pull", "--port", pico.port, str(tmp_path / "after"))
    assert status == 0 and err == "", err
    pulled, error = notation.load((tmp_path / "after/current.txt").read_text().splitlines())
    assert error is None and json.loads(writer.to_json(pulled)) == box_state
    assert (tmp_path / "after/current.txt").read_text() == notation.write(pulled)
    assert not (flash_dir / "games/damaged").exists()

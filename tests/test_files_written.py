"""Every file a host tool writes goes through host_tools.files.write_whole: a new temporary file
made exclusively beside the target (never followed through a link someone left, never the name
of another file), fsynced, renamed over it; a write that fails leaves the old target whole and
no temporary file; a folder, device, FIFO or socket is refused as a target, and so is one of
the command's inputs.

The commands run in this process (cli.main) in a folder of their own; a full disk is simulated
by a failing os.write, and a write cut short by the OS by RLIMIT_FSIZE in a real process.
"""
import errno
import os
import re
import resource
import socket
import stat
import subprocess
import sys

import pytest

from host_tools import cli, files
from host_tools.errors import MatchboxError
from host_tools.resources import CHECKOUT as ROOT
from uf2_helpers import micropython_uf2

pytestmark = pytest.mark.timeout(120)

GAME = "players 3\nhands 4 4 4\nplay 5\npass\nplay 7\n"


def run(capsys, *argv):
    """(status, stdout, stderr) of `matchbox ARGV` in this process."""
    try:
        status = cli.main([str(a) for a in argv])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err, command):
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("matchbox %s: " % command), err
    assert "Traceback" not in err
    return lines[0]


def listing(folder):
    return sorted(os.listdir(folder))


# --- the helper ---------------------------------------------------------------------------------

def test_a_write_replaces_the_target_whole_and_leaves_nothing_beside_it(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    files.write_whole(str(target), b"new" * 1000)
    assert target.read_bytes() == b"new" * 1000
    assert listing(tmp_path) == ["out.bin"]
    files.write_whole(str(tmp_path / "sub" / "text.txt"), "é\n")   # str as UTF-8, folder made
    assert (tmp_path / "sub" / "text.txt").read_bytes() == "é\n".encode()


def test_modes_are_as_open_makes_them_or_the_one_given(tmp_path):
    umask = os.umask(0o002)
    try:
        files.write_whole(str(tmp_path / "public"), b"x")
        files.write_whole(str(tmp_path / "secret"), b"x", mode=files.PRIVATE)
        files.write_whole(str(tmp_path / "certificate"), b"x", mode=0o644)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "public").st_mode) == 0o664
    assert stat.S_IMODE(os.stat(tmp_path / "secret").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "certificate").st_mode) == 0o644


@pytest.mark.parametrize("name", ["out.bin.tmp", "out.bin.pull-tmp", ".out.bin.tmp"])
def test_a_link_at_any_temporary_name_is_not_written_through(tmp_path, name):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"victim")
    (tmp_path / name).symlink_to(victim)
    files.write_whole(str(tmp_path / "out.bin"), b"data")
    assert victim.read_bytes() == b"victim" and os.path.islink(tmp_path / name)
    assert (tmp_path / "out.bin").read_bytes() == b"data"


def test_a_link_at_the_target_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"victim")
    (tmp_path / "out.bin").symlink_to(victim)
    files.write_whole(str(tmp_path / "out.bin"), b"data")
    assert victim.read_bytes() == b"victim"
    assert not os.path.islink(tmp_path / "out.bin")
    assert (tmp_path / "out.bin").read_bytes() == b"data"


def special_files(folder):
    """{name: path} of a folder, a FIFO, a socket, a link to the FIFO and (where this user
    may make one) a character device like /dev/null, in folder: none is ever written here."""
    folder.mkdir(exist_ok=True)
    # named as a report may be (.html): the name is not what is refused
    made = {"folder": folder / "folder.html", "fifo": folder / "fifo.html",
            "link to a fifo": folder / "fifo-link.html", "socket": folder / "socket.html"}
    made["folder"].mkdir()
    os.mkfifo(made["fifo"])
    made["link to a fifo"].symlink_to(made["fifo"])
    here = os.getcwd()
    os.chdir(folder)             # a socket's path is at most 107 bytes: bound by its name
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(made["socket"].name)
    finally:
        os.chdir(here)
    try:
        os.mknod(folder / "device.html", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        made["device"] = folder / "device.html"
    except OSError:
        pass
    return made


@pytest.mark.parametrize("kind, words", [
    ("folder", "it is a directory"), ("fifo", "it is a FIFO"), ("link to a fifo", "it is a FIFO"),
    ("socket", "it is a socket"), ("device", "it is a device")])
def test_a_target_that_is_not_a_regular_file_is_refused(tmp_path, kind, words):
    made = special_files(tmp_path)
    if kind not in made:
        pytest.skip("this user cannot make a device node")
    before = os.lstat(made[kind])
    with pytest.raises(MatchboxError) as got:
        files.write_whole(str(made[kind]), b"data")
    assert str(got.value) == "cannot write %s: %s" % (made[kind], str(got.value).split(": ", 1)[1])
    assert words in got.value.why
    after = os.lstat(made[kind])
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert listing(tmp_path) == sorted(p.name for p in made.values())


def test_an_input_is_never_the_output_by_name_link_or_hard_link(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"input")
    (tmp_path / "soft").symlink_to(source)
    os.link(source, tmp_path / "hard")
    for out in ("in.txt", "soft", "hard", "./in.txt"):
        with pytest.raises(MatchboxError, match="it is the input"):
            files.write_whole(os.path.join(str(tmp_path), out), b"output", inputs=[str(source)])
    assert source.read_bytes() == b"input" and os.path.islink(tmp_path / "soft")


def test_a_full_disk_leaves_the_old_file_whole_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_bytes(b"the old report")
    written = []

    def full(fd, data):
        if written:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(len(data))
        return min(len(data), 100)          # a short write first, then the disk is full
    monkeypatch.setattr(os, "write", full)
    with pytest.raises(MatchboxError) as got:
        files.write_whole(str(target), b"x" * 5000)
    assert str(got.value) == "cannot write %s: no space left on device" % target
    assert target.read_bytes() == b"the old report"
    assert listing(tmp_path) == ["report.html"]


def test_ctrl_c_during_a_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def interrupted(fd):
        raise KeyboardInterrupt
    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_whole(str(tmp_path / "out.bin"), b"data")
    assert listing(tmp_path) == []


# --- the commands' reproductions ----------------------------------------------------------------

@pytest.fixture
def firmware(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fw.uf2").write_bytes(micropython_uf2())
    return tmp_path


def test_uf2_keeps_an_input_named_like_the_old_temporary_file(firmware, capsys):
    os.rename(firmware / "fw.uf2", firmware / "fw.uf2.tmp")
    data = (firmware / "fw.uf2.tmp").read_bytes()
    status, out, err = run(capsys, "uf2", "--micropython", "fw.uf2.tmp", "-o", "fw.uf2")
    assert status == 0, err
    assert (firmware / "fw.uf2.tmp").read_bytes() == data
    assert listing(firmware) == ["fw.uf2", "fw.uf2.tmp"]


def test_uf2_does_not_write_through_a_link_beside_its_output(firmware, capsys):
    other = firmware / "other.bin"
    other.write_bytes(b"someone else's file")
    (firmware / "out.uf2.tmp").symlink_to(other)
    status, out, err = run(capsys, "uf2", "--micropython", "fw.uf2", "-o", "out.uf2")
    assert status == 0, err
    assert other.read_bytes() == b"someone else's file"
    assert os.path.islink(firmware / "out.uf2.tmp")
    assert (firmware / "out.uf2").stat().st_size > 1 << 20


@pytest.mark.parametrize("out", ["fw.uf2", "./fw.uf2", "link.uf2", "hard.uf2"])
def test_uf2_force_refuses_its_input_as_its_output(firmware, capsys, out):
    (firmware / "link.uf2").symlink_to("fw.uf2")
    os.link(firmware / "fw.uf2", firmware / "hard.uf2")
    data = (firmware / "fw.uf2").read_bytes()
    status, _, err = run(capsys, "uf2", "--micropython", "fw.uf2", "-o", out, "--force")
    line = one_line(err, "uf2")
    assert status == 2 and "cannot write %s: it is the input fw.uf2" % out in line, line
    assert (firmware / "fw.uf2").read_bytes() == data
    assert listing(firmware) == ["fw.uf2", "hard.uf2", "link.uf2"]


def test_enrol_does_not_write_the_passwords_through_a_link_beside_the_settings(tmp_path, capsys,
                                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("victim\n")
    victim.chmod(0o644)
    (tmp_path / "box.json.tmp").symlink_to(victim)
    monkeypatch.setenv("MATCHBOX_WIFI_PASSWORD", "wifi-secret-1")
    status, out, err = run(capsys, "hall", "enrol", "hall", "t1", "--settings", "box.json",
                           "--wifi-ssid", "Room")
    assert status == 0, err
    assert victim.read_text() == "victim\n" and stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert "wifi-secret-1" in (tmp_path / "box.json").read_text()
    assert stat.S_IMODE((tmp_path / "box.json").stat().st_mode) == 0o600


@pytest.mark.parametrize("argv", [
    ("card", "-o", "{}"),
    ("report", "game.txt", "-o", "{}"),
    ("wiring", "-o", "{}"),
    ("uf2", "--micropython", "fw.uf2", "--force", "-o", "{}"),
    ("hall", "enrol", "hall", "t1", "--settings", "{}"),
], ids=lambda argv: argv[0])
@pytest.mark.parametrize("kind", ["fifo", "link to a fifo", "socket", "device"])
def test_a_command_refuses_a_target_that_is_not_a_file(firmware, capsys, monkeypatch, argv, kind):
    made = special_files(firmware / "special")   # a folder of its own: listed before and after
    if kind not in made:
        pytest.skip("this user cannot make a device node")
    (firmware / "game.txt").write_text(GAME)
    monkeypatch.setenv("MATCHBOX_WIFI_PASSWORD", "")
    target = str(made[kind].relative_to(firmware))
    before = {p: os.lstat(firmware / "special" / p) for p in os.listdir(firmware / "special")}
    status, out, err = run(capsys, *[a.replace("{}", target) for a in argv])
    line = one_line(err, argv[0])
    assert status == 2 and "cannot write %s: it is a" % target in line, line
    after = {p: os.lstat(firmware / "special" / p) for p in os.listdir(firmware / "special")}
    assert {p: (s.st_ino, s.st_mode) for p, s in after.items()} == \
        {p: (s.st_ino, s.st_mode) for p, s in before.items()}
    assert not os.path.exists(firmware / "hall" / "credentials" / "amqtt.passwd") or \
        "t1:" not in (firmware / "hall" / "credentials" / "amqtt.passwd").read_text()


@pytest.mark.parametrize("ext", [".html", ".png"])
def test_report_on_a_disk_that_fills_leaves_the_old_report_whole(tmp_path, ext):
    """A report larger than the process may write (RLIMIT_FSIZE, the kernel's own refusal of a
    write, as a full disk refuses one): exit 2, one line, the old report as it was."""
    (tmp_path / "game.txt").write_text(GAME)
    old = tmp_path / ("game" + ext)
    old.write_bytes(b"the old report\n")
    limit = 2048     # far less than a report (an HTML page with its plot: about 40 KB)

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    proc = subprocess.run([sys.executable, "-m", "host_tools.cli", "report", "game.txt", "-o",
                           old.name], cwd=str(tmp_path), capture_output=True, text=True,
                          timeout=100, preexec_fn=small_files,
                          env=dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1"))
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert re.fullmatch(r"matchbox report: cannot write game%s: file too large" % re.escape(ext),
                        line), proc.stderr
    assert old.read_bytes() == b"the old report\n"
    assert listing(tmp_path) == ["game%s" % ext, "game.txt"]


# --- no other way to write a file ---------------------------------------------------------------

# What opens, copies, renames or draws into a file (a mode with w, a, x or +, O_WRONLY, O_RDWR,
# O_CREAT, shutil.copy*, write_text/write_bytes, os.replace/rename, mkstemp, savefig, imsave).
WRITES = re.compile(r"""open\([^)]*["'][rwxab]*[wax+][rwxab+]*["']|O_WRONLY|O_RDWR|O_CREAT"""
                    r"""|shutil\.copy|\.write_text\(|\.write_bytes\(|os\.replace\(|os\.rename\("""
                    r"""|mkstemp\(|NamedTemporaryFile|savefig\(|imsave\(""")

# The writes that are not a command's file, each with why: (module, the line's text, why)
ALLOWED = [
    ("host_tools/cli.py", 'open(os.devnull, "w")', "stdout to /dev/null once its reader left"),
    ("host_tools/errors.py", "tempfile.mkstemp(prefix=\".matchbox-probe-\"",
     "an empty probe, removed at once: can the folder take a file?"),
    ("host_tools/reports/plot.py", "fig.savefig(out, format=\"svg\"", "into memory (StringIO)"),
    ("host_tools/reports/plot.py", "fig.savefig(out, format=\"png\"", "into memory (BytesIO)"),
    ("host_tools/commands/card.py", "pdf.savefig(figure)", "into memory (BytesIO)"),
    ("host_tools/commands/labels.py", "pdf.savefig(figure)", "into memory (BytesIO)"),
    ("host_tools/event/sheets.py", "self.pdf.savefig(self.figure)", "into memory (BytesIO)"),
    ("host_tools/device/image.py", 'fs.open(path, "wb")', "a file in a littlefs image in memory"),
    ("host_tools/device/serial_board.py", "open(%r,'wb')",
     "MicroPython on the board opens its own file (sent over the REPL)"),
    ("host_tools/hall/nats.py", "open(self.log, \"a\"", "the audience broker's log, appended to as a log is kept"),
    ("host_tools/hall/records.py", 'open(path, "ab")',
     "a line appended to a table's record, as a journal is kept (never replaced)"),
    ("host_tools/hall/records.py", 'open(path, "r+b")',
     "a torn last line of a table's record cut at power-up, as a journal is repaired"),
    ("host_tools/hall/records.py", 'open(self.log_path, "ab", buffering=0)',
     "the hall's commit log, appended to as a journal is kept; emptied at a checkpoint"),
    ("host_tools/hall/records.py", 'open(log_path, "r+b")',
     "the commit log emptied once its lines are in their files, fsynced"),
    ("host_tools/hall/records.py", "os.replace(path, aside)",
     "a rewritten record set aside under a new name, kept"),
    ("host_tools/wasm_cache.py", "os.rename(staged, dest)",
     "a whole folder of fsynced files (written by write_whole) renamed into the cache at once"),
    ("host_tools/commands/sim.py", "os.rename(current, path)",
     "a kept game moved to the next free archive name, as the box archives it"),
    ("host_tools/virtual/pty_board.py", "_os.rename(_real(old), _real(new))",
     "the virtual Pico's os module: MicroPython's rename on the board's own flash"),
    ("host_tools/table_pages.py", "matplotlib.image.imsave(png", "into memory (BytesIO)"),
]
# The helper itself, and what is not the host's: MicroPython code run on the virtual board (its
# flash) and in the browser
NOT_HOST = ("host_tools/files.py", "host_tools/virtual/mpy/", "host_tools/webpage/",
            "host_tools/virtual/rp2040js/", "host_tools/reports/replay_portable.py")


def test_no_module_writes_a_file_but_through_the_helper():
    found, used = [], set()
    for folder, dirs, names in os.walk(os.path.join(ROOT, "host_tools")):
        dirs[:] = [d for d in dirs if d not in ("node_modules", "__pycache__")]
        for name in names:
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), ROOT)
            if rel.startswith(NOT_HOST):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if not WRITES.search(line) or line.lstrip().startswith("#"):
                        continue
                    allowed = [a for a in ALLOWED if a[0] == rel and a[1] in line]
                    used.update((a[0], a[1]) for a in allowed)
                    if not allowed:
                        found.append("%s:%d: %s" % (rel, number, line.strip()))
    assert found == [], "write these through host_tools.files.write_whole:\n" + "\n".join(found)
    assert sorted(used) == sorted((a[0], a[1]) for a in ALLOWED), "an allowance no longer used"

"""`matchbox doctor` against a virtual Pico (the MicroPython unix port on a pty).

The real firmware is flashed to it first with host_tools.commands.flash. The unix port has no I2C bus
or GPIO pins, so the bus scan is skipped there; the tests that reach the display and key steps
put a stand-in `machine` module on the virtual board's flash (FAKE_MACHINE below: I2C devices
that answer and log their writes, and pins that read the key a scripted person holds).
"""
import contextlib
import hashlib
import io
import json
import os
import random
import re
import shutil

import pytest
import serial

from host_tools import cli, resources
from host_tools.commands import doctor, flash
from host_tools.device.serial_board import connect
from host_tools.resources import FIRMWARE
from host_tools.virtual.pty_board import PtyBoard

FAKE_MACHINE = '''
"""Stand-in for the Pico's machine module on the virtual Pico (doctor tests)."""
import binascii
import json
import sys

ADDRESSES = %r
_levels = {}
_map = []


def _held():
    try:
        with open("/held.txt") as f:
            return f.read().strip()
    except OSError:
        return ""


def _pinmap():
    if not _map:
        with open("/pinmap.json") as f:
            _map.append(json.load(f))
    return _map[0]


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1

    def __init__(self, gpio, mode=None, pull=None, value=None):
        self.gpio = gpio
        if value is not None:
            _levels[gpio] = value

    def init(self, *args, **kw):
        pass

    def value(self, v=None):
        if v is not None:
            _levels[self.gpio] = v
            return None
        m = _pinmap()
        kp = m["keypad"]
        held = _held()
        for b in m["buttons"]:
            if b["gpio"] == self.gpio:
                return 0 if b["name"] == held else 1
        if self.gpio in kp["cols"]:
            c = kp["cols"].index(self.gpio)
            for r in range(len(kp["rows"])):
                if kp["legend"][r][c] == held and _levels.get(kp["rows"][r], 1) == 0:
                    return 0
            return 1
        return _levels.get(self.gpio, 1)


class I2C:
    def __init__(self, id, sda=None, scl=None, freq=400000):
        pass

    def scan(self):
        return list(ADDRESSES)

    def writeto(self, addr, buf, stop=True):
        if addr not in ADDRESSES:
            raise OSError(19)
        with open("/i2c.log", "a") as f:
            f.write("%%02x %%s\\n" %% (addr, binascii.hexlify(bytes(buf)).decode()))
        return len(buf)


class PWM:
    def __init__(self, pin, freq=None, duty_u16=None):
        pass

    def freq(self, hz=None):
        pass

    def duty_u16(self, d=None):
        pass


def reset():
    sys.exit()
'''


@pytest.fixture
def pico(tmp_path):
    with PtyBoard(str(tmp_path / "flash")) as board:
        yield board


def _flash(pico, root=FIRMWARE):
    with contextlib.redirect_stdout(io.StringIO()) as out:
        status = flash.flash(port=pico.port, root=root, timeout=5)
    assert status == 0, out.getvalue()


def _matchbox(capsys, *argv):
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out + err


def _step(out, n):
    """The result line of step n (1..6)."""
    m = re.search(r"^%d\. .*$" % n, out, re.M)
    assert m, out
    return m.group(0)


def _word(out, n):
    """OK, PROBLEM or SKIPPED of step n."""
    return re.match(r"\d\. .{11} (\S+)", _step(out, n)).group(1)


def _micropython(pico):
    """The MicroPython version the virtual Pico runs, as doctor shows it (1.29.0)."""
    with connect(pico.port) as board:
        return ".".join(str(v) for v in board.info()["version"][:3])


def test_a_micropython_the_box_does_not_support_is_named_with_what_to_download(capsys, tmp_path):
    with PtyBoard(str(tmp_path / "flash")) as new:
        _flash(new)
    with PtyBoard(str(tmp_path / "flash"), version="1.27.0") as old:
        status, out = _matchbox(capsys, "doctor", "--port", old.port, "--yes", "--skip-keys")
    assert status == 1, out
    assert _step(out, 2) == (
        "2. firmware    PROBLEM  the board runs MicroPython 1.27.0, and the box needs v1.28.0 or "
        "later: download it for your board from https://micropython.org/download/RPI_PICO/ "
        "(Pico) or https://micropython.org/download/RPI_PICO_W/ (Pico W); then run "
        "`matchbox flash`"), out
    assert all(_word(out, n) == "SKIPPED" for n in range(3, 7)), out


class Person:
    """doctor's output stream and the person at the box: holds the key doctor asks for
    (or what `wrong` says instead: a key name, "" for nothing) by writing /held.txt."""

    def __init__(self, flash_dir, wrong=None, interrupt_at=None):
        self.flash_dir = flash_dir
        self.wrong = wrong or {}
        self.interrupt_at = interrupt_at
        self.text = ""

    def write(self, s):
        self.text += s
        m = re.search(r"press (\S+)\s+\.\.\. $", s)
        if m:
            name = m.group(1)
            if name == self.interrupt_at:
                raise KeyboardInterrupt
            with open(os.path.join(self.flash_dir, "held.txt"), "w") as f:
                f.write(self.wrong.get(name, name))
        return len(s)

    def flush(self):
        pass

    def isatty(self):
        return True


def _fake_machine(flash_dir, addresses):
    with open(os.path.join(flash_dir, "lib", "machine.py"), "w") as f:
        f.write(FAKE_MACHINE % (addresses,))


def _lit_and_blank():
    """The RAM image of a display with every digit, point and the colon lit, and of a blank
    one, as the box's driver makes them (its canary bytes included)."""
    from box.ht16k33 import HT16K33

    class Bus:
        def writeto(self, addr, buf):
            return len(buf)

    d = HT16K33(Bus(), 0x70)
    blank = bytes(d.ram)
    for pos in range(4):
        d.raw(pos, 0xFF)
    d.colon(True)
    assert bytes(d.ram).count(0xFF) == 4 and blank.count(0) == 14
    return bytes(d.ram), blank


def _ram_history(flash_dir):
    """{address: list of RAM images after each RAM write} from the fake bus's log."""
    history = {}
    ram = {}
    with open(os.path.join(flash_dir, "i2c.log")) as f:
        for line in f:
            addr, data = line.split()
            addr, data = int(addr, 16), bytes.fromhex(data)
            if data[0] < 16 and len(data) > 1:
                image = ram.setdefault(addr, bytearray(16))
                image[data[0]:data[0] + len(data) - 1] = data[1:]
                history.setdefault(addr, []).append(bytes(image))
    return history


def _button(m, name):
    return [b["gpio"] for b in m["buttons"] if b["name"] == name][0]


def _matrix(m, face):
    kp = m["keypad"]
    r = [i for i, row in enumerate(kp["legend"]) if face in row][0]
    c = kp["legend"][r].index(face)
    return "keypad row %d (GP%d) x column %d (GP%d)" % (r + 1, kp["rows"][r], c + 1, kp["cols"][c])


# ---------------------------------------------------------------- the virtual Pico as it is

def test_flashed_virtual_board_is_ok(capsys, pico, tmp_path):
    _flash(pico)
    games = tmp_path / "flash" / "games"
    games.mkdir()
    (games / "current.txt").write_bytes(b"players 4\n")
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 0, out
    version = doctor.local_version()
    assert re.match(r"1\. connection +OK +MicroPython .* at %s$" % re.escape(pico.port), _step(out, 1)), out
    assert re.match(r"2\. firmware +OK +MicroPython 1\.\d+\.\d+ \(supported\), firmware %s, the same "
                    r"as this matchbox command$" % re.escape(version), _step(out, 2)), out
    assert re.match(r"3\. self-test +OK +4 passed, 0 failed$", _step(out, 3)), out
    for name in ("engine", "display", "journal", "pinmap"):
        assert re.search(r"^ +ok +%s: " % name, out, re.M), out
    assert _word(out, 4) == "SKIPPED" and "the bus cannot be scanned here" in _step(out, 4), out
    assert _word(out, 5) == "SKIPPED"
    assert _word(out, 6) == "SKIPPED" and "--skip-keys" in _step(out, 6)
    assert out.rstrip().endswith("Everything checked is OK (3 skipped).")
    # maintenance flag gone, the game in progress untouched, the self-test's folder removed
    assert not (tmp_path / "flash" / "maintenance").exists()
    assert sorted(os.listdir(str(games))) == ["current.txt"]
    assert (games / "current.txt").read_bytes() == b"players 4\n"


def test_doctor_lists_the_records_the_box_could_not_resume(capsys, pico, tmp_path):
    _flash(pico)
    games = tmp_path / "flash" / "games"
    (games / "damaged").mkdir(parents=True)
    sample = os.path.join(os.path.dirname(doctor.FIRMWARE), "docs", "examples", "sample-game.txt")
    with open(sample, "rb") as f:
        bad = f.read().replace(b"2: play 1\n", b"2: plya 1\n", 1)
    (games / "damaged" / "001-current.txt").write_bytes(bad)
    (games / "broken.txt").write_bytes(b"players 9\n")
    texts = ["players 2", "dealer 1", "expansion none", "revolution 5", "sticks 40",
             "hands 15 15", "1: play 3", "2: play 5"]
    from tycoon import notation
    repaired = b"".join([notation.tagged(i + 1, t) for i, t in enumerate(texts)])
    (games / "damaged" / "002-current.txt").write_bytes(repaired.replace(b"2: play 5", b"2: play 6"))
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 0, out    # a note: the box kept every byte
    assert "records: 3 damaged records kept on the box's flash (it showed rEPr or LoSt" in out, out
    assert re.search(r"^ +/games/damaged/002-current.txt: line 8 repaired by its checksum tag; "
                     r"every action resumed \(8 lines\)$", out, re.M), out
    assert re.search(r"^ +/games/damaged/001-current.txt: line 10: syntax: unknown word 'plya'; "
                     r"114 of its 123 lines not resumed$", out, re.M), out
    assert re.search(r"^ +/games/broken.txt: line 1: syntax: players must be 2 to 8; no game in "
                     r"it \(1 line\)$", out, re.M), out
    assert (games / "damaged" / "001-current.txt").read_bytes() == bad


def test_empty_board_has_no_firmware(capsys, pico, tmp_path):
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 1, out
    assert _word(out, 1) == "OK"
    assert "PROBLEM  no Matchbox firmware on the board: run `matchbox flash`" in _step(out, 2), out
    for n in range(3, 7):
        assert _word(out, n) == "SKIPPED" and "run `matchbox flash` first" in _step(out, n), out
    assert "1 problem found" in out
    assert os.listdir(str(tmp_path / "flash")) == []  # the flag file is gone again


def test_incomplete_firmware(capsys, pico, tmp_path):
    _flash(pico)
    os.remove(str(tmp_path / "flash" / "pinmap.json"))
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 1
    assert "the firmware is incomplete (pinmap.json missing): run `matchbox flash`" in _step(out, 2), out


def test_bad_ports(capsys, tmp_path, pico):
    status, out = _matchbox(capsys, "doctor", "--port", str(tmp_path / "ttyNOPE"))
    assert status == 1
    assert "PROBLEM  no board at %s: no such device" % (tmp_path / "ttyNOPE") in _step(out, 1), out
    assert all(_word(out, n) == "SKIPPED" for n in range(2, 7))
    plain = tmp_path / "plain.txt"
    plain.write_text("not a port\n")
    status, out = _matchbox(capsys, "doctor", "--port", str(plain))
    assert status == 1
    assert "PROBLEM  %s is not a serial port" % plain in _step(out, 1), out
    with serial.Serial(pico.port, exclusive=True):
        status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--timeout", "2")
    assert status == 1
    assert "PROBLEM  %s is busy" % pico.port in _step(out, 1), out


def test_other_firmware_version_and_pin_map(capsys, pico, tmp_path):
    fw = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, str(fw), symlinks=False)
    (fw / "lib" / "box" / "version.py").write_text('VERSION = "0.0.1"\n')
    m = resources.load_pinmap()
    m["i2c"]["freq"] = 100000
    os.remove(str(fw / "pinmap.json"))
    (fw / "pinmap.json").write_text(json.dumps(m))
    _flash(pico, str(fw))
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 1, out
    want = ("PROBLEM  MicroPython %s (supported); the board runs firmware 0.0.1, this matchbox command has "
            "%s: run `matchbox flash`" % (_micropython(pico), doctor.local_version()))
    assert want in _step(out, 2), out
    # the board's own pin map is the one the box runs with: the checks follow it
    assert ("\n      the board keeps its own pinmap.json, not hardware/pinmap.json: the checks "
            "below use the board's\n3. self-test") in out, out
    assert _word(out, 3) == "OK"  # the rest is still checked


def test_failing_selftest_shows_its_fail_line(capsys, pico, tmp_path):
    _flash(pico)
    m = resources.load_pinmap()
    m["keypad"]["rows"][0] = m["keypad"]["cols"][0]
    (tmp_path / "flash" / "pinmap.json").write_text(json.dumps(m))
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 1
    assert _word(out, 2) == "OK", out
    assert ("the board keeps its own pinmap.json, not hardware/pinmap.json: it has mistakes (see "
            "the self-test), so the checks below use hardware/pinmap.json") in out, out
    assert re.match(r"3\. self-test +PROBLEM +3 passed, 1 failed", _step(out, 3)), out
    assert re.search(r"^ +FAIL pinmap: GP%d used by both ROW1 and COL1$" % m["keypad"]["cols"][0], out, re.M), out


def test_firmware_without_selftest(capsys, pico, tmp_path):
    _flash(pico)
    os.remove(str(tmp_path / "flash" / "lib" / "box" / "selftest.mpy"))
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 1
    assert "has no self-test (older firmware): run `matchbox flash`" in _step(out, 3), out


def test_a_stale_maintenance_flag_is_cleared(capsys, pico, tmp_path):
    _flash(pico)
    (tmp_path / "flash" / "maintenance").write_text("left behind\n")
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 0, out
    assert "left in maintenance mode" in out
    assert not (tmp_path / "flash" / "maintenance").exists()


def test_key_test_needs_a_terminal(capsys, pico):
    _flash(pico)
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--light-seconds", "0")
    assert status == 0, out
    assert _word(out, 6) == "SKIPPED" and "needs a person at a terminal" in _step(out, 6), out


# ---------------------------------------------------------------- with a stand-in machine module

def test_bus_displays_and_keys_on_a_board_with_machine(pico, tmp_path):
    flash_dir = str(tmp_path / "flash")
    _flash(pico)
    m = resources.load_pinmap()
    addrs = [d["address"] for d in m["displays"]]
    _fake_machine(flash_dir, addrs)
    person = Person(flash_dir)
    asked = []
    reboots = pico.reboots
    status = doctor.doctor(port=pico.port, interactive=True, out=person, key_timeout=2,
                           ask=lambda q: asked.append(q) or "y")
    out = person.text
    assert status == 0, out
    assert "restarting the board in maintenance mode" in out  # it has machine.reset
    assert pico.reboots >= reboots + 2  # into maintenance mode, and back at the end
    assert _step(out, 4).endswith("OK       all %d displays answer: %s"
                                  % (len(addrs), " ".join("0x%02x" % a for a in addrs))), out
    assert "OK       all segments of 4 display(s) light (confirmed)" in _step(out, 5), out
    assert len(asked) == 1 and "Are they all lit?" in asked[0]
    assert _step(out, 6).endswith("OK       all 24 keys seen"), out
    order = re.findall(r"press (\S+) +\.\.\. ok", out)
    assert order == doctor.key_order(m) and len(order) == 24
    history = _ram_history(flash_dir)
    lit, blank = _lit_and_blank()
    for a in addrs:  # every display was lit all over, then cleared
        assert lit in history[a], a
        assert history[a][-1] == blank, a
    assert not os.path.exists(os.path.join(flash_dir, "maintenance"))


def test_problems_with_the_bus_displays_and_keys(pico, tmp_path):
    flash_dir = str(tmp_path / "flash")
    _flash(pico)
    m = resources.load_pinmap()
    addrs = [d["address"] for d in m["displays"]]
    _fake_machine(flash_dir, addrs[:3] + [0x3C])
    with open(os.path.join(flash_dir, "held.txt"), "w") as f:
        f.write("PASS")  # a button that reads as pressed before anyone touches it
    person = Person(flash_dir, wrong={"5": "1", "UNDO": ""})
    status = doctor.doctor(port=pico.port, interactive=True, out=person, key_timeout=0.5,
                           ask=lambda q: "n")
    out = person.text
    assert status == 1, out
    step4 = _step(out, 4)
    role = m["displays"][3]["role"].split(":")[0]
    assert "PROBLEM  3 of 4 displays answer; missing: 0x%02x (%s; address jumpers %s)" % (
        addrs[3], role, doctor.jumpers(addrs[3])) in step4, out
    assert doctor.jumpers(0x73) == "A0 + A1" and doctor.jumpers(0x70) == "none" and doctor.jumpers(0x74) == "A2"
    assert "also answering, not in the pin map: 0x3c" in out
    assert "PROBLEM  some segments stay dark" in _step(out, 5), out
    step6 = _step(out, 6)
    assert "PROBLEM" in step6
    assert "PASS stuck down (button on GP%d)" % _button(m, "PASS") in step6, out
    assert "5 read as 1 (%s; 1 is %s)" % (_matrix(m, "5"), _matrix(m, "1")) in step6, out
    assert "UNDO not seen (button on GP%d)" % _button(m, "UNDO") in step6, out
    assert re.search(r"press 5 +\.\.\. the board saw 1$", out, re.M)
    assert "read as pressed before the test, with nobody touching them: PASS" in out
    assert len(re.findall(r"\.\.\. ok$", out, re.M)) == 22
    assert re.search(r"press UNDO +\.\.\. nothing within 0.5s$", out, re.M)
    assert "3 problems found" in out
    history = _ram_history(flash_dir)
    assert sorted(history) == addrs[:3]  # only the displays that answered are lit


def test_ctrl_c_in_the_key_test_still_ends_maintenance_mode(pico, tmp_path):
    flash_dir = str(tmp_path / "flash")
    _flash(pico)
    _fake_machine(flash_dir, [0x70, 0x71, 0x72, 0x73])
    person = Person(flash_dir, interrupt_at="7")
    status = doctor.doctor(port=pico.port, interactive=True, out=person, key_timeout=1, ask=lambda q: "y")
    assert status == 1
    assert "stopped." in person.text
    assert "maintenance mode off" in person.text
    assert not os.path.exists(os.path.join(flash_dir, "maintenance"))


def test_yes_lights_the_displays_without_asking(capsys, pico, tmp_path):
    flash_dir = str(tmp_path / "flash")
    _flash(pico)
    _fake_machine(flash_dir, [d["address"] for d in resources.load_pinmap()["displays"]])
    status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--light-seconds", "0.2")
    assert status == 0, out
    assert _word(out, 4) == "OK"
    assert "OK       lit every segment of 4 display(s) (not confirmed: --yes)" in _step(out, 5), out
    assert _word(out, 6) == "SKIPPED"
    lit, blank = _lit_and_blank()
    assert all(images[-1] == blank and lit in images for images in _ram_history(flash_dir).values())


def test_full_flash(capsys, tmp_path):
    flash_dir = tmp_path / "flash"
    with PtyBoard(str(flash_dir)) as pico:
        _flash(pico)
    used = sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(str(flash_dir)) for f in files)
    with PtyBoard(str(flash_dir), capacity=used + 4) as pico:
        status, out = _matchbox(capsys, "doctor", "--port", pico.port, "--yes", "--skip-keys")
    assert status == 1
    assert "PROBLEM  the board's flash is full" in out, out
    assert not (flash_dir / "maintenance").exists()


# --- --boot-rom: the Pico's boot ROM for the emulated Pico ------------------------------------

def _rom(tmp_path, magic=b"Mu\x01"):
    data = bytearray(random.Random(7).randrange(256) for _ in range(doctor.BOOT_ROM_SIZE))
    data[0x10:0x13] = magic
    path = tmp_path / "memory.bin"
    path.write_bytes(bytes(data))
    return str(path), bytes(data)


def test_boot_rom_reads_16_kb_from_address_0_into_the_file(capsys, tmp_path):
    memory, data = _rom(tmp_path)
    out_file = tmp_path / "out" / "rp2040-bootrom.bin"
    with PtyBoard(str(tmp_path / "flash"), bootrom=memory) as board:
        status, out = _matchbox(capsys, "doctor", "--port", board.port, "--boot-rom",
                                str(out_file))
    assert status == 0, out
    assert out_file.read_bytes() == data
    assert out == ("wrote %s: the RP2040 boot ROM of the Pico at %s (16384 bytes, sha256 %s)\n"
                   % (out_file, board.port, hashlib.sha256(data).hexdigest()))
    assert os.listdir(str(tmp_path / "flash")) == []      # nothing left on the board


@pytest.mark.parametrize("case, words", [
    ("refuse", "the board could not read its memory at 0x0000: OSError: [Errno 1] EPERM"),
    ("not a rom", "what the board has at address 0 is not an RP2040 boot ROM (no 'Mu' magic "
                  "at 0x10): is it a Pico?"),
    ("exists", "exists: give a new file name"),
    ("no board", "no board at /nonexistent/ttyACM9"),
])
def test_boot_rom_that_cannot_be_read_is_one_line_and_no_file(capsys, tmp_path, case, words):
    memory = "refuse" if case == "refuse" else _rom(tmp_path, magic=b"XX\x00")[0] \
        if case == "not a rom" else _rom(tmp_path)[0]
    out_file = tmp_path / "rom.bin"
    if case == "exists":
        out_file.write_bytes(b"keep me")
    with PtyBoard(str(tmp_path / "flash"), bootrom=memory) as board:
        port = "/nonexistent/ttyACM9" if case == "no board" else board.port
        status = cli.main(["doctor", "--port", port, "--boot-rom", str(out_file)])
        out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("matchbox doctor: ") and words in err, err
    assert sorted(os.listdir(str(tmp_path))) == sorted(
        ["flash", "memory.bin"] * (case != "refuse") + ["rom.bin"] * (case == "exists")
        + ["flash"] * (case == "refuse"))
    if case == "exists":
        assert out_file.read_bytes() == b"keep me"

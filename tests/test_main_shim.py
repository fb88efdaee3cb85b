"""firmware/main.py, the entry point on the Pico's littlefs, under the MicroPython unix
port with a stand-in `machine`: it starts box.powerup when the box's code is there, and when it
cannot be imported it prints one line saying what to do and shows `COdE` `Err` on the displays.
"""
import json
import os
import shutil
import subprocess

import pytest

from box_helpers import shown
from host_tools.resources import FIRMWARE
from host_tools.virtual.box import micropython
from host_tools.virtual.ht16k33 import VirtualHT16K33

MAIN = os.path.join(FIRMWARE, "main.py")
CODEERR = os.path.join(FIRMWARE, "codeerr.py")
PINMAP = os.path.join(FIRMWARE, "pinmap.json")

# Runs main.py as the board does, with a `machine` whose I2C prints each write as
# `@w ADDR HEX`; addresses in ABSENT get no ACK (OSError), as on a bus without that chip.
DRIVER = r"""
import sys

ABSENT = %r


class I2C:
    def __init__(self, bus, sda=None, scl=None, freq=None):
        print("@i2c", bus, freq)

    def writeto(self, addr, buf):
        if addr in ABSENT:
            raise OSError(19)
        print("@w", addr, "".join("%%02x" %% b for b in buf))


class Pin:
    def __init__(self, gpio, *args, **kw):
        pass


class Machine:
    pass


machine = Machine()
machine.I2C = I2C
machine.Pin = Pin
sys.modules["machine"] = machine
sys.path[0] = ""   # as on the Pico: the littlefs root (here the working directory) first
with open(%r) as f:
    exec(f.read(), {"__name__": "__main__"})
print("@end")
"""


def run_main(tmp_path, lib=None, pinmap=True, absent=(), codeerr=True):
    """Run main.py with `lib` as the only module folder; returns (console lines, chips)."""
    flash = tmp_path / "flash"
    flash.mkdir()
    if pinmap:
        shutil.copyfile(PINMAP, str(flash / "pinmap.json"))
    if codeerr:   # beside main.py, as flash puts it
        shutil.copyfile(CODEERR, str(flash / "codeerr.py"))
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER % (tuple(absent), MAIN))
    empty = tmp_path / "empty-lib"
    empty.mkdir()
    env = dict(os.environ, MICROPYPATH=str(lib or empty))
    proc = subprocess.run([micropython(), str(driver)], cwd=str(flash), env=env,
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "@end", lines
    chips = {}
    for line in lines:
        if line.startswith("@w "):
            _, addr, data = line.split()
            chip = chips.setdefault(int(addr), VirtualHT16K33(int(addr)))
            assert chip.write(bytes.fromhex(data))
    return [ln for ln in lines if not ln.startswith("@")], chips


def addresses():
    with open(PINMAP) as f:
        return [d["address"] for d in json.load(f)["displays"]]


def test_without_the_box_it_says_what_to_do_and_shows_code_err(tmp_path):
    console, chips = run_main(tmp_path)
    assert len(console) == 1, console
    line = console[0]
    assert line == ("Matchbox: box code missing or damaged (no module named 'box'). Run "
                    "`matchbox flash` on a computer with this Pico plugged in.")
    first, second, *others = addresses()
    assert sorted(chips) == sorted([first, second] + others)
    assert chips[first].text() == shown("COdE")
    assert chips[second].text() == shown("Err")
    assert all(chips[a].text() == shown("") for a in others)   # no stale game left lit
    for chip in chips.values():
        assert chip.lit and chip.brightness == 15 and chip.blink == 0 and chip.unknown == []


def test_a_missing_display_does_not_stop_the_others(tmp_path):
    first, second, *_ = addresses()
    console, chips = run_main(tmp_path, absent=(first,))
    assert len(console) == 1 and "matchbox flash" in console[0]
    assert first not in chips
    assert chips[second].text() == shown("Err") and chips[second].lit


def test_without_codeerr_py_only_the_message(tmp_path):
    """The displays' COdE Err is a file of its own beside main.py (main.py's code stays in the
    heap while the box runs, so it is kept short); without it the line still comes."""
    console, chips = run_main(tmp_path, codeerr=False)
    assert len(console) == 1 and "matchbox flash" in console[0]
    assert chips == {}


def test_without_a_pin_map_only_the_message(tmp_path):
    console, chips = run_main(tmp_path, pinmap=False)
    assert len(console) == 1 and "matchbox flash" in console[0]
    assert chips == {}


@pytest.mark.parametrize("body, error", [
    ("raise ValueError('incompatible .mpy file')\n", "(incompatible .mpy file)"),  # damaged
    ("import box.nothing_here\n", "(no module named 'box.nothing)"),   # half a tree
])
def test_a_damaged_box_is_reported_the_same_way(tmp_path, body, error):
    """The reason is cut at 28 characters: until a terminal opens the USB serial the Pico
    keeps only its last 256 bytes of output, and the REPL banner (107 bytes) follows."""
    lib = tmp_path / "lib"
    (lib / "box").mkdir(parents=True)
    (lib / "box" / "__init__.py").write_text("")
    (lib / "box" / "powerup.py").write_text(body)
    console, chips = run_main(tmp_path, lib=lib)
    assert len(console) == 1 and error in console[0], console
    assert len(console[0]) + 2 + 107 <= 256
    assert chips[addresses()[0]].text() == shown("COdE")


def test_with_the_box_it_runs_powerup_and_nothing_else(tmp_path):
    lib = tmp_path / "lib"
    (lib / "box").mkdir(parents=True)
    (lib / "box" / "__init__.py").write_text("")
    (lib / "box" / "powerup.py").write_text("def run():\n    print('powerup.run')\n")
    console, chips = run_main(tmp_path, lib=lib)
    assert console == ["powerup.run"]
    assert chips == {}


def test_an_error_inside_the_box_is_not_taken_for_a_missing_box(tmp_path):
    """Only the import is guarded: a crash of the running box keeps its traceback (and the
    watchdog it armed resets the board), it is not reported as missing code."""
    lib = tmp_path / "lib"
    (lib / "box").mkdir(parents=True)
    (lib / "box" / "__init__.py").write_text("")
    (lib / "box" / "powerup.py").write_text("def run():\n    raise ImportError('inside')\n")
    with pytest.raises(AssertionError, match="ImportError: inside") as failed:
        run_main(tmp_path, lib=lib)
    assert "missing or damaged" not in str(failed.value)

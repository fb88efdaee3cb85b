"""The box on a Pico W's official MicroPython (RPI_PICO_W, its UF2 given by MATCHBOX_PICO_W_UF2)
on the emulated RP2040: it resumes and plays without the radio rp2040js lacks, and starts the
radio once, before its game is shown. Like every emulated-Pico test these run only where the
UF2s and the boot ROM are given (docs/emulated-pico.md), and skip with one line otherwise.
"""
import json
import os

import pytest

from host_tools.virtual import emulated_pico as ep

REASON = ep.missing()
if REASON:
    pytest.skip("emulated Pico: " + REASON, allow_module_level=True)

from tycoon import notation  # noqa: E402
from host_tools.device.board_info import DOWNLOAD  # noqa: E402
from test_emulated_pico import game_files, journal_state  # noqa: E402

PICO_W_UF2 = os.environ.get("MATCHBOX_PICO_W_UF2")
PICO_W = ep.missing(PICO_W_UF2) if PICO_W_UF2 else (
    "no MicroPython UF2 for the Pico W given: set MATCHBOX_PICO_W_UF2 to the RPI_PICO_W v1.28.0 "
    "or later from %s" % DOWNLOAD["picow"])
if PICO_W:
    pytest.skip("emulated Pico W: " + PICO_W, allow_module_level=True)


def board_says(pico, expression):
    """Ctrl-C, then `expression` evaluated at the board's REPL (as text)."""
    assert pico.interrupt() == "repl"
    mark = len(pico.console)
    pico.write_serial(("print('@@', %s)\r" % expression).encode())
    pico.run_until(lambda: any(line.startswith("@@ ") for line in pico.console[mark:]), 3000)
    return next(line[3:] for line in pico.console[mark:] if line.startswith("@@ "))


def run_on(pico, ms, step=50):
    """Run the board on for `ms` emulated ms in steps of `step`, as a Pico W must be run
    (docs/emulated-pico.md): each step is a short wait for the emulator however busy the
    machine is (the harness gives a step 120 s of wall time), and rp2040js stalls in the
    radio's start when run on in one long step."""
    for _ in range(ms // step):
        pico.advance(step)


def test_the_pico_w_runs_the_box_without_its_radio(tmp_path):
    """RPI_PICO_W (rp2040js has no CYW43 radio): a game in progress on the Pico W's littlefs
    (212 blocks at 0x12C000, found from the UF2's binary info) resumes as on the Pico, a move is
    recorded, every flash write falls in that littlefs; starting the radio fails at once,
    without hanging."""
    files, game = game_files(tmp_path)
    with ep.EmulatedPico(files=files) as pico:
        assert pico.boot() == "running"
        pico.advance(300)
        on_pico = pico.displays()
    with ep.EmulatedPico(files=files, uf2=PICO_W_UF2) as picow:
        assert (picow.fs_offset, picow.fs_blocks) == (0x12C000, 212)
        assert picow.boot() == "running"
        picow.advance(300)
        assert picow.displays() == on_pico and on_pico[0].strip()
        assert journal_state(picow)[1] == notation.write(game)
        before = picow.journal_text()
        picow.keys("PASS")
        picow.advance(300)
        assert picow.journal_text().startswith(before) and len(picow.journal_text()) > len(before)
        assert picow.flash_log and all(0x12C000 <= off < 0x200000 for _k, off, _n in picow.flash_log)
        assert board_says(picow, "__import__('box.app').app.__file__") == "/lib/box/app.mpy"
        assert board_says(picow, "__import__('os').statvfs('/')[2]") == "212"
        mark = len(picow.serial)
        picow.write_serial(b"import network; w = network.WLAN(network.STA_IF); w.active(True)\r")
        picow.run_until(lambda: b"Failed to start CYW43" in picow.serial[mark:], 5000)
        assert b"[CYW43] Failed to start CYW43" in picow.serial[mark:]
        assert board_says(picow, "1 + 1") == "2"   # the REPL answers after it


def test_the_pico_w_starts_its_radio_once_before_its_game_is_shown(tmp_path):
    """RPI_PICO_W with the hall's settings on its flash (hall.json, a broker at a TEST-NET
    address): the radio starts at power-up, before the first frame (its start holds the box;
    rp2040js has no CYW43, so it fails, after 0.6-1.1 s emulated), and never again: the joins
    the link starts later fail at once, and the keys go on being recorded."""
    from host_tools.hall import uplink
    files, _game = game_files(tmp_path)
    data = uplink.settings("mqtt://t1:pw@192.0.2.1:1883", "Room", "secret99")
    files["hall.json"] = json.dumps(data).encode()
    with ep.EmulatedPico(files=files, uf2=PICO_W_UF2) as picow:
        assert picow.boot() == "running"    # the displays set up and lit, blank
        # in short steps: rp2040js stalls in the radio's start when run on in one long step
        assert picow.run_until(lambda: picow.framed_at is not None, 3000)
        failed = [ln for ln in picow.console if "Failed to start CYW43" in ln]
        assert len(failed) == 1 and picow.framed_at >= 500   # the game shown after the start
        before = picow.journal_text()
        run_on(picow, 15000)      # the loop quiet 3 s: a join, failed at once; 5 s on, another
        for key in ("PASS", "UNDO", "PASS"):
            picow.keys(key)
            run_on(picow, 300)
        assert sum(1 for ln in picow.console if "Failed to start CYW43" in ln) == 1
        after = picow.journal_text()
        assert after.startswith(before) and after.count("\n") == before.count("\n") + 3

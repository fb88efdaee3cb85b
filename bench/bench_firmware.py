"""Firmware figures: I2C bytes and heap per key press, boot to the first lit frame, .mpy size.

Runs bench/mpy_firmware_bench.py under the MicroPython unix port (a seeded 4-player game
played by key presses on four displays with the real journal in a temp folder), then the
human-paced game of bench/bench_emulated_pico.py on the virtual box (the unix port) against
Adafruit's Seg7x4 driver, then compiles the firmware with mpy-cross for the Pico. I2C bytes
are bytes on the bus, each write's address byte included (the payload alone in brackets).
Prints figures; times nothing in tests.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from host_tools.device.build import stage  # noqa: E402
from host_tools.device.tools import find  # noqa: E402


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


def main():
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
    print("  boot to first lit frame (imports, journal resume, first show): %.1f ms" % (
        int(f["first_frame_us"]) / 1000.0))
    sizes = mpy_sizes()
    lib = sum(n for rel, n in sizes.items() if rel.endswith(".mpy"))
    engine = sum(n for rel, n in sizes.items() if rel.startswith("lib/tycoon/"))
    print("  firmware .mpy total: %d bytes in %d modules (engine %d bytes); all files %d bytes" % (
        lib, sum(1 for rel in sizes if rel.endswith(".mpy")), engine, sum(sizes.values())))


if __name__ == "__main__":
    main()

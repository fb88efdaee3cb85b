"""Firmware figures: I2C bytes and heap per key press, boot to the first lit frame, .mpy size.

Runs bench/mpy_firmware_bench.py under the MicroPython unix port (a seeded 4-player game
played by key presses on four displays with the real journal in a temp folder), then
compiles the firmware with mpy-cross for the Pico. Prints figures; times nothing in tests.
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
    mean, full = float(f["i2c_mean"]), float(f["full_mean"])
    print("  I2C bytes per key press: mean %.1f, worst %s (full 17-byte buffers: mean %.1f, worst %s;"
          " %.1fx less)" % (mean, f["i2c_worst"], full, f["full_worst"], full / mean))
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

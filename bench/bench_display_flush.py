"""Time of a flush of the displays on the Pico's MicroPython (RPI_PICO v1.28.0) on an emulated
RP2040: show() of the box's HT16K33 driver on four displays, frame after frame, over what the
human-paced game of bench_emulated_pico.py shows (its frames taken from a run on the unix
port's virtual box, the safeguard's re-sends left out as they change nothing).

Emulated time is an estimate of a Pico, not a measurement of one; the emulated I2C bus takes
about no time for a byte (a Pico's at 400 kHz takes 22.5 us), so this is the CPU's share of a
flush: fewer bytes and writes on a real bus only make a flush shorter still.

Run: .venv/bin/python bench/bench_display_flush.py [--compare FILE]   (a minute or two)
FILE: another version of box/ht16k33.py (`git show REV:firmware/lib/box/ht16k33.py > FILE`),
timed in the same run, the two in turn. Skips with one line when the emulator cannot run.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import bench_emulated_pico as bep  # noqa: E402
from host_tools.virtual.ht16k33 import VirtualHT16K33  # noqa: E402

ROUNDS = 3
ADDRESSES = (0x70, 0x71, 0x72, 0x73)

PROBE = b'''# bench only: show() on four displays over the frames in frames.bin
import time
from box import hw_pico, pins
hw = hw_pico.build(pins.load())
from box.ht16k33 import HT16K33
drivers = [("box.ht16k33", HT16K33)]
try:
    import ht16k33_compare
    drivers.append(("compared", ht16k33_compare.HT16K33))
except ImportError:
    pass
with open("frames.bin", "rb") as f:
    frames = f.read()
count = len(frames) // 64
for _ in range(%d):
    for name, cls in drivers:
        ds = [cls(hw.i2c, a) for a in (0x70, 0x71, 0x72, 0x73)]
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
        print("FLUSH %%s %%d %%d %%d" %% (name, count, total, worst))
print("FLUSHED")
while True:
    time.sleep_ms(100)
''' % ROUNDS


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


def main(argv=()):
    argv = list(argv)
    reason = bep.ep.missing()
    if reason:
        print("emulated Pico: skipped: " + reason)
        return 0
    extra = {}
    if "--compare" in argv:
        at = argv.index("--compare")
        if at + 1 >= len(argv):
            print("bench_display_flush: --compare: missing the driver file")
            return 2
        path = argv[at + 1]
        try:
            with open(path, "rb") as f:
                extra["lib/ht16k33_compare.py"] = f.read()
        except OSError as e:
            print("bench_display_flush: --compare %s: %s" % (path, e.strerror))
            return 2
    frames = game_frames()
    extra["frames.bin"] = b"".join(frames)
    with bep.ep.EmulatedPico(files=bep.pico_files(PROBE, extra)) as pico:
        pico.boot(wait_lit=False)
        bep.wait_line(pico, "FLUSHED", 600000)
        lines = [line.split() for line in pico.console if line.startswith("FLUSH ")]
    print("Flush of four displays on the Pico's MicroPython (emulated RP2040; emulated time, "
          "the bus taking about no time): %d frames of the human-paced game, %d rounds" % (
              len(frames), ROUNDS))
    for name in dict.fromkeys(words[1] for words in lines):
        mine = [(int(w[3]), int(w[4])) for w in lines if w[1] == name]
        total = min(t for t, _w in mine)
        print("   %-12s %.2f ms a frame (best round), worst frame %.2f ms; rounds: %s ms" % (
            name, total / 1000.0 / len(frames), max(w for _t, w in mine) / 1000.0,
            ", ".join("%.1f" % (t / 1000.0) for t, _w in mine)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Firmware figures on fake hardware; run by bench_firmware.py under MicroPython (and CPython).

Plays a seeded 4-player game by key presses on a 4-display box and prints one line of
`key=value` figures: I2C bytes per key press (ours, and Adafruit's Seg7x4 rewriting the
displays that changed), heap per key press, and the time to the first key scan and frame.
Bytes on the bus count each write's address byte; the payload alone (register and data) is
given too.
"""
import gc
import sys
import time

try:
    ticks_us = time.ticks_us
    ticks_diff = time.ticks_diff
except AttributeError:  # CPython
    def ticks_us():
        return int(time.perf_counter() * 1000000)

    def ticks_diff(a, b):
        return a - b

MPY = sys.implementation.name == "micropython"
SEG7X4_SHOW = 17   # register + 16 RAM bytes: what Adafruit's Seg7x4.show() sends, in one write


class Lcg:
    def __init__(self, seed):
        self.x = seed

    def below(self, n):
        self.x = (self.x * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.x >> 8) % n


def choose(game, rnd):
    """Key names for a legal action: the weakest plain play that beats the table, else pass."""
    if game.must_return():
        return ["PLAY"]
    count = game.top_count or 1 + rnd.below(3)
    order = list(range(16))
    if game.revolution:
        order.reverse()
    start = rnd.below(4) if game.top_value < 0 else 0
    for v in order[start:]:
        faces = [v] * count
        try:
            game.check_play(faces)
        except Exception:
            continue
        return ["0123456789ABCDEF"[v]] * count + ["PLAY"]
    return ["PASS"] if game.top_value >= 0 else ["0123456789ABCDEF"[order[0]], "PLAY"]


def counting(bus):
    """Count the bus's successful writes (each puts the address byte on the bus too)."""
    real = bus.writeto
    bus.writes = 0

    def writeto(addr, buf):
        n = real(addr, buf)
        bus.writes += 1
        return n
    bus.writeto = writeto
    return bus


def press_keys(app, clock, names):
    from box import keys as K
    for name in names:
        clock.now += 120
        app.key(K.code(name))
        app.step()


def main():
    from box import keys as K
    t0 = ticks_us()
    from app_helpers import Bus, Clock, Keys
    from box import runtime
    from box.app import App
    from box.buzzer import Buzzer
    from box.ht16k33 import HT16K33
    from box.journal import Journal
    addresses = (0x70, 0x71, 0x72, 0x73)
    bus = counting(Bus(addresses))
    clock = Clock()
    journal = Journal(sys.argv[1] if len(sys.argv) > 1 else "games")
    # dark until the app's boot has read the journal, as power-up makes them (box.runtime)
    app = App([HT16K33(bus, a, 15, False) for a in addresses], Keys(), Buzzer(None), journal,
              clock)
    runtime.boot(app)
    app.step()   # the first key scan, then the first frame
    first_frame_us = ticks_diff(ticks_us(), t0)
    press_keys(app, clock, ["PLAY"] * 9)   # the setup menu's defaults: four players
    rnd = Lcg(7)
    ndisp = len(app.displays)
    ours = []      # (bytes on the bus, payload bytes) per key press
    seg7x4 = []
    heap = []
    shown = [bytes(bus.ram[a]) for a in sorted(bus.ram)]
    presses = 0
    while not app.game.finished and presses < 3000:
        for name in choose(app.game, rnd):
            code = K.code(name)
            clock.now += 120
            gc.collect()
            before_heap = gc.mem_alloc() if MPY else 0
            before = bus.bytes
            writes = bus.writes
            app.key(code)
            app.step()
            after_heap = gc.mem_alloc() if MPY else 0
            ours.append((bus.bytes - before + bus.writes - writes, bus.bytes - before))
            now = [bytes(bus.ram[a]) for a in sorted(bus.ram)]
            changed = 0
            for i in range(ndisp):
                if now[i] != shown[i]:
                    changed += 1
            shown = now
            seg7x4.append((changed * (SEG7X4_SHOW + 1), changed * SEG7X4_SHOW))
            heap.append((name, after_heap - before_heap))
            presses += 1
        clock.now += 2000   # let announcements end
        app.step()
    face_heap = [h for n, h in heap if len(n) == 1]
    action_heap = [h for n, h in heap if n in ("PLAY", "PASS")]
    print("presses=%d actions=%d finished=%s" % (presses, len(app.game), app.game.finished))
    n = len(ours)
    print("i2c_mean=%.1f i2c_worst=%d i2c_payload_mean=%.1f seg7x4_mean=%.1f "
          "seg7x4_payload_mean=%.1f" % (
              sum(b for b, _p in ours) / n, max(b for b, _p in ours), sum(p for _b, p in ours) / n,
              sum(b for b, _p in seg7x4) / n, sum(p for _b, p in seg7x4) / n))
    print("heap_face_mean=%.1f heap_face_max=%d heap_action_mean=%.1f heap_action_max=%d" % (
        sum(face_heap) / len(face_heap), max(face_heap),
        sum(action_heap) / len(action_heap), max(action_heap)))
    print("first_frame_us=%d" % first_frame_us)


if __name__ == "__main__":   # bench/mpy_uplink_bench.py imports its game
    main()

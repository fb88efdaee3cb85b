"""Key to display with the hall's link running; run by bench_uplink.py under the MicroPython
unix port: `micropython mpy_uplink_bench.py GAMES_DIR [HOST PORT [BOX PASSWORD]]` (no HOST: no
link).

Plays a seeded 4-player game by key presses on four displays (fake bus, the real journal in
GAMES_DIR) as the main loop runs it: between two keys, GAP loop passes of `app.step()`, the
link's `step()` and a 1 ms sleep (the Pico's idle) in real time, so the network moves on; each
key comes right after a link step (the worst place for it: the key waits for that step) and
its time is from the start of that link step to the first display write of the key. Prints one
line of key=value figures: key to display p50/p99/max in us, the link step's p50/p99/max,
lines sent, connections dropped, and the heap: the link's modules (imported) and the running
link (its objects, buffers and socket) after gc.collect().
"""
import gc
import sys
import time

from mpy_firmware_bench import Lcg, choose, counting

GAP = 40   # loop passes between two keys (about 50 ms of real time each gap)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


class Stamped:
    """The bus's writes, with the time of the first one since `arm()`."""

    def __init__(self, bus):
        self.bus = bus
        self.first = None
        real = bus.writeto

        def writeto(addr, buf):
            if self.first is None:
                self.first = time.ticks_us()
            return real(addr, buf)
        bus.writeto = writeto

    def arm(self):
        self.first = None


def main():
    from app_helpers import Bus, Clock, Keys
    from box import keys as K
    from box import runtime
    from box.app import App
    from box.buzzer import Buzzer
    from box.ht16k33 import HT16K33
    from box.journal import Journal
    root = sys.argv[1]
    host = sys.argv[2] if len(sys.argv) > 2 else None
    addresses = (0x70, 0x71, 0x72, 0x73)
    bus = counting(Bus(addresses))
    stamp = Stamped(bus)
    clock = Clock()
    journal = Journal(root)
    app = App([HT16K33(bus, a) for a in addresses], Keys(), Buzzer(None), journal, clock)
    runtime.boot(app)
    app.step()
    gc.collect()
    heap0 = gc.mem_alloc()
    link = None
    heap_modules = heap_link = 0
    if host:
        from box import mqtt_link
        from box.uplink import Cursor
        gc.collect()
        heap1 = gc.mem_alloc()
        heap_modules = heap1 - heap0

        class Joined:
            def up(self, now):
                return True
        box = sys.argv[4] if len(sys.argv) > 4 else "bench"
        password = sys.argv[5] if len(sys.argv) > 5 else "bench-password"
        settings = {"host": host, "port": int(sys.argv[3]), "box": box, "password": password}

        def make():
            return mqtt_link.Link(settings, Cursor(journal.store, root, journal), time.ticks_ms,
                                  Joined())
        link = make()
    steps = []
    keyed = []

    def idle(passes, record=True):
        for _ in range(passes):
            clock.now += 1
            app.step()
            if link is not None:
                t = time.ticks_us()
                link.step()
                if record:
                    steps.append(time.ticks_diff(time.ticks_us(), t))
            time.sleep_ms(1)

    def press(name):
        idle(GAP)
        clock.now += 1
        stamp.arm()
        t = time.ticks_us()
        if link is not None:
            link.step()
        app.key(K.code(name))
        app.step()
        if stamp.first is not None:
            keyed.append(time.ticks_diff(stamp.first, t))

    for _ in range(9):   # the setup menu's defaults: four players
        press("PLAY")
    rnd = Lcg(7)
    presses = 9
    while not app.game.finished and presses < 3000:
        for name in choose(app.game, rnd):
            press(name)
            presses += 1
        clock.now += 2000   # let announcements end
        app.step()
    sent = dropped = 0
    if link is not None:
        idle(200)
        sent, dropped = link.sent, link.dropped
        link = None   # a new link on the finished game, measured from nothing: its objects,
        gc.collect()  # buffers and socket, the cursor's window, after 200 passes
        before = gc.mem_alloc()
        link = make()
        idle(200, False)
        gc.collect()
        heap_link = gc.mem_alloc() - before
    steps = steps or [0]
    print("presses=%d key_p50_us=%d key_p99_us=%d key_max_us=%d step_p50_us=%d "
          "step_p99_us=%d step_max_us=%d sent=%d dropped=%d heap_modules=%d heap_link=%d" % (
              presses, pct(keyed, 50), pct(keyed, 99), max(keyed), pct(steps, 50),
              pct(steps, 99), max(steps), sent, dropped, heap_modules, heap_link))


main()

"""The box's resident heap on the MicroPython unix port, its modules loaded as .mpy files from a
folder as the official MicroPython loads them from the Pico's littlefs (their bytecode goes
into the heap); run by bench_firmware.py in the staged tree (lib/, pinmap.json, games/).

Like the emulated Pico's heap probe (bench_emulated_pico.py), but for main.py and box.powerup,
which that one counts too (it runs main.py on the board): the heap allocated before the
firmware's imports is the base; the board (box.hw_pico, on a stand-in `machine` made here) and
box.runtime start the app, which runs 40 passes of its main loop; then the garbage is collected
and the heap counted; the modules power-up lets go once the app is started are let go first
(BOOT_ONLY, box.powerup's, which bench_firmware.py writes in as it copies this file into the
tree, as the emulated probe has it). Modes (argv[1]): `boot` (whatever games/ holds: the setup menu, or the
game resumed), `started` (the setup menu, then a new game started from it), `modules` (a
resumed game, then what the modules the box imports only when they are used take, each after
the app: the quick reference and the setup menu opened by their keys, with the time the key
took; the repair, tycoon.repair with the reader it needs; the uplink's cursor, box.uplink; the
hall's MQTT link, box.mqtt_link). Prints `HEAP k=v ...` lines, then MicroPython's qstr pool
line.
"""
import gc
import sys
import time


class Pin:
    OPEN_DRAIN = IN = OUT = PULL_UP = 0

    def __init__(self, *args, **kwargs):
        pass

    def value(self, v=None):
        return 1   # pulled up: no key down


class I2C:
    """HT16K33s at every address: writes land in a RAM that reads give back."""

    def __init__(self, *args, **kwargs):
        self.ram = {}

    def writeto(self, address, buf):
        ram = self.ram.get(address)
        if ram is None:
            ram = self.ram[address] = bytearray(256)
        if len(buf) > 1:
            ram[buf[0]:buf[0] + len(buf) - 1] = buf[1:]
        return len(buf)

    def readfrom_mem_into(self, address, register, buf):
        ram = self.ram.get(address) or bytearray(256)
        buf[:] = ram[register:register + len(buf)]


class PWM:
    def __init__(self, pin):
        pass

    def duty_u16(self, duty):
        pass

    def freq(self, hz):
        pass


class machine:   # what box.hw_pico takes from the board's module
    Pin = Pin
    I2C = I2C
    PWM = PWM


def heap():
    gc.collect()
    return gc.mem_alloc()


def opened(app, event):
    """(heap in B, time in us) a key that opens a mode takes, its module loaded with it."""
    before = heap()
    t = time.ticks_us()
    app.key(event)
    app.step()
    us = time.ticks_diff(time.ticks_us(), t)
    return heap() - before, us


def start():
    # box.powerup's start: the power-up modules imported here, let go once the app is started
    from box import hw_pico, pins, runtime
    m = pins.load()
    hw = hw_pico.build(m)
    return hw, runtime.start(hw, m)


def run(mode):
    sys.modules["machine"] = machine
    base = heap()
    t = time.ticks_us()
    hw, app = start()
    import box
    for name in BOOT_ONLY:  # noqa: F821  (written in by bench_firmware.py)
        box.forget(name)
    boot_us = time.ticks_diff(time.ticks_us(), t)
    from box import keys
    if mode == "started":
        for _ in range(9):   # the menu's defaults, four players: PLAY through every item
            app.key(keys.PLAY)
            app.step()
    for _ in range(40):
        app.step()
        hw.idle()
    resident = heap() - base
    loaded = sorted(n for n in sys.modules if n.startswith("box.") or n.startswith("tycoon."))
    print("HEAP resident=%d boot_us=%d actions=%d modules=%s" % (
        resident, boot_us, -1 if app.game is None else len(app.game), ",".join(loaded)))
    if mode == "modules":   # from the resumed game
        ref, ref_us = opened(app, keys.MENU)
        app.key(keys.DEL)
        menu, menu_us = opened(app, keys.LONG | keys.MENU)
        print("HEAP ref=%d ref_us=%d setup=%d setup_us=%d" % (ref, ref_us, menu, menu_us))
        for name in ("tycoon.repair", "box.uplink", "box.mqtt_link"):
            before = heap()
            __import__(name)
            print("HEAP module=%s bytes=%d" % (name, heap() - before))


run(sys.argv[1] if len(sys.argv) > 1 else "boot")
import micropython   # noqa: E402
micropython.qstr_info()

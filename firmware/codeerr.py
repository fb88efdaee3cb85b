"""`COdE` `Err` on the displays (docs/display.md), when a pin map is readable: what main.py
shows when the box's code cannot be imported, after its line on the USB REPL.

A file of its own, imported only then: MicroPython holds a running main.py's code in the heap
for as long as the box runs, and this would be 0.8 KB of it (official MicroPython, emulated).
Plain source at the root beside main.py: it must load where the box's .mpy files do not (a
MicroPython of another .mpy version).
"""
import json
import machine

# HT16K33 RAM images (address 0, then digits at RAM 0, 2, 6, 8): `COdE` on display 1, `Err`
# on display 2, the others blank, so no stale game is left lit.
_RAM = (b"\x00\x39\x00\x3f\x00\x00\x00\x5e\x00\x79" + bytes(7),
        b"\x00\x79\x00\x50\x00\x00\x00\x50" + bytes(9))
_BLANK = bytes(17)


def show():
    try:
        with open("pinmap.json") as f:
            m = json.load(f)
    except (OSError, ValueError):
        return
    bus = m["i2c"]
    i2c = machine.I2C(bus["id"], sda=machine.Pin(bus["sda"]), scl=machine.Pin(bus["scl"]),
                      freq=bus["freq"])
    for n, d in enumerate(m["displays"]):
        # oscillator on, the RAM, display on, full brightness
        for data in (b"\x21", _RAM[n] if n < len(_RAM) else _BLANK, b"\x81", b"\xef"):
            try:
                i2c.writeto(d["address"], data)
            except OSError:  # a display missing: the others still show the code
                break

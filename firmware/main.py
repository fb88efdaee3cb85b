"""Matchbox's entry point on the Pico: starts the box (box.powerup.run).

On the Pico's littlefs beside lib/ (`matchbox flash` or `matchbox uf2` puts it there), on the
official MicroPython the maker downloads; the box's own start-up lives in box.powerup.
When the box's code cannot be imported (nothing in /lib, a damaged or half-copied module), it
says so in one line on the USB REPL, shows `COdE` `Err` on the displays when a pin map is
readable (docs/display.md), and returns to the REPL with no watchdog armed.
"""
try:
    from box import powerup
except Exception as exc:  # ImportError, or the errors of a damaged or half-written module
    powerup = None
    _why = exc

# HT16K33 RAM images (address 0, then digits at RAM 0, 2, 6, 8): `COdE` on display 1, `Err`
# on display 2, the others blank, so no stale game is left lit.
_RAM = (b"\x00\x39\x00\x3f\x00\x00\x00\x5e\x00\x79" + bytes(7),
        b"\x00\x79\x00\x50\x00\x00\x00\x50" + bytes(9))
_BLANK = bytes(17)


def _show_code():
    import json
    import machine
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


if powerup is not None:
    powerup.run()
else:
    # One short line: until a terminal opens the USB serial, the Pico keeps only the last
    # 256 bytes printed, and the REPL's banner (107 bytes) comes after this line.
    print("Matchbox: box code missing or damaged (%s). Run `matchbox flash` on a computer "
          "with this Pico plugged in." % str(_why)[:28])
    try:
        _show_code()
    except Exception:  # a map or a bus that does not work: the message above still stands
        pass

"""Matchbox's entry point on the Pico: starts the box (box.powerup.run).

On the Pico's littlefs beside lib/ (`matchbox flash` or `matchbox uf2` puts it there), on the
official MicroPython the maker downloads; the box's own start-up lives in box.powerup.
When the box's code cannot be imported (nothing in /lib, a damaged or half-copied module), it
says so in one line on the USB REPL, shows `COdE` `Err` on the displays when a pin map is
readable (codeerr.py beside it; docs/display.md), and returns to the REPL with no watchdog
armed. It is kept short: MicroPython holds a running main.py's code in the heap while the box
runs.
"""
try:
    from box import powerup
except Exception as exc:  # ImportError, or the errors of a damaged or half-written module
    powerup = None
    _why = exc

if powerup is not None:
    powerup.run()
else:
    # One short line: until a terminal opens the USB serial, the Pico keeps only the last
    # 256 bytes printed, and the REPL's banner (107 bytes) comes after this line.
    print("Matchbox: box code missing or damaged (%s). Run `matchbox flash` on a computer "
          "with this Pico plugged in." % str(_why)[:28])
    try:
        import codeerr   # COdE Err on the displays
        codeerr.show()
    except Exception:  # no such file, a map or a bus that does not work: the line stands
        pass

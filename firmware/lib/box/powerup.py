"""Power-up of the box on the Pico: `run()` is what main.py calls.

Hold MENU at power-up (or leave a file named `maintenance` in the root, as `matchbox doctor`
does) to skip the app and the watchdog and stay at the REPL for maintenance. Ctrl-C over USB
stops the app and the watchdog too, so mpremote can work on a running box.

The built-in modules the box imports are filed in sys.modules under their plain names first
from their u-names: MicroPython looks for a file of a built-in's plain name (`time.py`) along
sys.path before it takes the built-in, a search of the littlefs costing about 2.2 ms a module
on the emulated Pico (15 ms of every boot), while `utime` is the built-in at once. A stray
`json.py` on the flash cannot stand in for the built-in either.
"""
import sys

for _name in ("os", "time", "machine", "json", "struct", "binascii", "array", "select"):
    if _name not in sys.modules:   # (the simulator's board files its own machine and time)
        try:
            sys.modules[_name] = __import__("u" + _name)
        except ImportError:   # a build without it: imported as usual where it is needed
            pass

import box   # noqa: E402
from box.app import loop   # noqa: E402

# What only power-up uses: let go once the app is started, their code back to the heap for
# the game (on the official MicroPython a module's code is in the heap while it is loaded).
BOOT_ONLY = ("box.runtime", "box.pins", "box.hw_pico")


def _start():
    # (hw, app), or None in maintenance mode: box.runtime's power-up, imported here so that
    # nothing holds it once this returns (its code and the map's reading go back to the heap)
    from box import runtime
    return runtime.power_up()


def run():
    hw = None
    try:
        started = _start()   # the map's 2.4 KB of heap go back once the parts are built
        if started is None:
            return
        hw, app = started
        for name in BOOT_ONLY:
            box.forget(name)
        loop(hw, app)
    except KeyboardInterrupt:
        # Ctrl-C over USB (mpremote does this first): leave a REPL the watchdog won't reset
        if hw is not None:
            hw.stop_watchdog()
        print("Matchbox stopped by Ctrl-C. The watchdog is off; the REPL is yours.")

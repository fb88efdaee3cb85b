"""Power-up of the box on the Pico: `run()` is what main.py calls.

Hold MENU at power-up (or leave a file named `maintenance` in the root, as `matchbox doctor`
does) to skip the app and the watchdog and stay at the REPL for maintenance. Ctrl-C over USB
stops the app and the watchdog too, so mpremote can work on a running box.
"""
import os

from box import hw_pico, pins, runtime


def _flag_file():
    try:
        os.stat("maintenance")
        return True
    except OSError:
        return False


def run():
    m = pins.load()   # read once (about 9 ms on the emulated Pico): board, check and app
    hw = hw_pico.build(m)
    if _flag_file() or runtime.maintenance(hw, m):
        print("Matchbox: maintenance mode. The app and the watchdog are off; the REPL is yours.")
        return
    # Any other error ends the loop with a traceback; the watchdog then restarts the box,
    # which resumes the game from its journal.
    hw.watchdog(8000)
    try:
        app = runtime.start(hw, m)
        m = None   # the map's 2.4 KB of heap go back once the parts are built
        runtime.loop(hw, app)
    except KeyboardInterrupt:
        # Ctrl-C over USB (mpremote does this first): leave a REPL the watchdog won't reset
        hw.stop_watchdog()
        print("Matchbox stopped by Ctrl-C. The watchdog is off; the REPL is yours.")

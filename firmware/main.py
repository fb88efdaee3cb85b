"""Matchbox firmware entry point on the Pico.

Hold MENU at power-up (or leave a file named `maintenance` in the root, as `matchbox doctor`
does) to skip the app and the watchdog and stay at the REPL for maintenance.
"""
import os

from box import hw_pico, runtime


def _flag_file():
    try:
        os.stat("maintenance")
        return True
    except OSError:
        return False


def main():
    hw = hw_pico.build()
    if _flag_file() or runtime.maintenance(hw):
        print("Matchbox: maintenance mode. The app and the watchdog are off; the REPL is yours.")
        return
    hw.watchdog(8000)
    runtime.run(hw)


main()

"""Box application modules: pin map, display, keypad and buzzer drivers (hardware injected),
and the two helpers they share: letting a module go (`forget`) and clock arithmetic (`ticks_diff`)."""
import sys


def forget(name):
    """Let the module `name` ('box.setup', 'tycoon.repair') go: out of sys.modules and off its
    package, so that once nothing else holds it its code and data go back to the heap (the
    official MicroPython loads a module from the Pico's filesystem into RAM). Importing it
    again loads it again."""
    sys.modules.pop(name, None)
    package, _, attr = name.rpartition(".")
    parent = sys.modules.get(package)
    if parent is not None and hasattr(parent, attr):
        delattr(parent, attr)


def ticks_diff(a, b):
    """a - b in milliseconds, right across the wrap of MicroPython's ticks_ms at 2**30 (what
    time.ticks_diff gives; the clock is injected, so the box subtracts its own)."""
    return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

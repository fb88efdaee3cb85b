"""Box application modules: pin map, display, keypad and buzzer drivers (hardware injected)."""
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

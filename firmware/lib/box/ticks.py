"""Clock arithmetic for MicroPython's ticks_ms, which wraps around at 2**30."""


def diff(a, b):
    """a - b in milliseconds, right across the wrap (what time.ticks_diff gives)."""
    return ((a - b + 0x20000000) & 0x3FFFFFFF) - 0x20000000

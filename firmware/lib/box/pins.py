"""Read the pin and address map (pinmap.json); pure data, no `machine` import.

Only what the box needs to build its parts lives here; box.pincheck, which finds mistakes
in a map, is imported by the self-test alone, so the box does not keep it in its heap.
"""
import json

from box.keys import code

# The display kinds a map may name ("kind" of a display; without one, the first): each has a
# driver in box.runtime.display.
KINDS = ("ht16k33",)


def load(path="pinmap.json"):
    """Return the map as a dict (on the Pico the working directory is `/`, and the map is the
    one `matchbox flash` or `matchbox uf2` put on the littlefs). OSError when it is not there."""
    with open(path) as f:
        return json.load(f)


def buttons(m):
    """List of (name, gpio) for the direct buttons, in map order."""
    return [(b["name"], b["gpio"]) for b in m["buttons"]]


def key_codes(legend, buttons, size):
    """The codes box.keys.Keys takes: the keypad's `legend` (a string a row naming the faces
    of its keys, left to right) for a matrix of `size` keys, then the `buttons`' names (list of
    (name, pin)). ValueError when the legend does not match the matrix or names no key."""
    codes = bytes(code(ch) for row in legend for ch in row)
    if len(codes) != size:
        raise ValueError("legend does not match the matrix")
    return codes + bytes(code(name) for name, _ in buttons)


def addresses(m):
    """I2C addresses of the display backpacks, display index order."""
    return [d["address"] for d in m["displays"]]


def displays(m):
    """(kind, address) of each display, display index order (a display without a "kind" is
    of the first of KINDS: an HT16K33 backpack)."""
    return [(d.get("kind", KINDS[0]), d["address"]) for d in m["displays"]]


def buzzer_gpio(m):
    """GPIO of the piezo, or None when the box has no buzzer."""
    b = m.get("buzzer")
    return b["gpio"] if b else None

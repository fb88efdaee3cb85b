"""Helpers for the tests that run the whole box on virtual hardware."""
from box import panels

from host_tools.virtual.ht16k33 import VirtualHT16K33


def shown(text):
    """How the virtual chip reads a word the firmware draws left-aligned on a panel."""
    chip = VirtualHT16K33()
    data = bytearray(17)
    for i, ch in enumerate(text[:4]):
        data[1 + (0, 2, 6, 8)[i]] = panels.mask(ord(ch))
    chip.write(bytes(data))
    return chip.text()

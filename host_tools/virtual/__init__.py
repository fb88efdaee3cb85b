"""Everything that stands in for hardware: the virtual box (unix port), the virtual Pico on a pty,
the emulated Pico (the Pico's own MicroPython on rp2040js, in rp2040js/), the HT16K33 chip model
and the pictures of its displays; mpy/ is the MicroPython side."""

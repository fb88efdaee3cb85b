"""The Pico's `hw` while the box runs (the contract: docs/architecture.md): its parts, the
watchdog, a pass of idling, a line to the computer.

box.hw_pico makes it from the pin map at power-up and is let go once the app is started; this
module keeps only what the running box calls. With box.hw_pico, the only modules besides
main.py that import `machine`; everything else gets the parts injected.
"""
import sys
import time

import machine

IDLE_MS = 1   # ms slept per main-loop pass: a key is seen within about 2 ms


class PicoHw:
    """The `hw` object of the Pico: the parts box.hw_pico made from the pin map."""

    def __init__(self, i2c, rows, cols, buttons, buzzer):
        self.i2c = i2c
        self.rows = rows
        self.cols = cols
        self.buttons = buttons   # [(name, pin)]
        self.buzzer = buzzer     # machine.PWM, or None
        self.ticks_ms = time.ticks_ms
        self.games = "games"
        self.store = None
        self.wdt = None
        self.usb = sys.stdin.buffer   # the USB serial's input (box.app.loop polls it)

    def watchdog(self, timeout_ms=8000):
        """Start the hardware watchdog (it cannot be stopped); idle() feeds it."""
        self.wdt = machine.WDT(timeout=timeout_ms)

    def stop_watchdog(self):
        """Stop the watchdog after Ctrl-C, so the REPL (mpremote, matchbox flash) is not reset
        under it. machine.WDT has no stop on the rp2 port, so clear the chip's CTRL.ENABLE
        bit (bit 30) through its atomic-clear alias (+0x3000)."""
        chip = getattr(sys.implementation, "_machine", "")   # "... with RP2040" or RP2350
        base = 0x400D8000 if "RP2350" in chip else 0x40058000
        machine.mem32[base + 0x3000] = 1 << 30
        self.wdt = None

    def feed(self):
        """Feed the watchdog, if it runs (the journal does, reading a long record at boot)."""
        if self.wdt is not None:
            self.wdt.feed()

    def idle(self):
        if self.wdt is not None:
            self.wdt.feed()
        time.sleep_ms(IDLE_MS)

    def emit(self, line):
        print(line)

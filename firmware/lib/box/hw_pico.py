"""The real board: machine.I2C, Pins, PWM and the watchdog of a Raspberry Pi Pico, per the pin map.

Only this module and main.py import `machine`; everything else gets the parts injected.
"""
import sys
import time

import machine

IDLE_MS = 1   # ms slept per main-loop pass: a key is seen within about 2 ms


class PicoHw:
    """The `hw` object of the Pico (the contract: docs/architecture.md)."""

    def __init__(self, pinmap=None):
        from box import pins   # imported here: a power-up module, let go after it (box.powerup)
        m = pinmap or pins.load()
        bus = m["i2c"]
        self.i2c = machine.I2C(bus["id"], sda=machine.Pin(bus["sda"]), scl=machine.Pin(bus["scl"]),
                               freq=bus["freq"])
        kp = m["keypad"]
        self.rows = [machine.Pin(g, machine.Pin.OPEN_DRAIN, value=1) for g in kp["rows"]]
        self.cols = [machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP) for g in kp["cols"]]
        self.buttons = [(name, machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP))
                        for name, g in pins.buttons(m)]
        g = pins.buzzer_gpio(m)
        self.buzzer = machine.PWM(machine.Pin(g)) if g is not None else None
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


def build(pinmap=None):
    return PicoHw(pinmap)

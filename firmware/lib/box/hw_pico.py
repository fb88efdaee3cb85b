"""The real board: the Pico's `hw` (box.pico.PicoHw) made from the pin map at power-up, with
machine.I2C, Pins and PWM.

Power-up only: box.powerup lets this module go once the app is started (BOOT_ONLY), its code
back to the heap for the game (official MicroPython holds a loaded module's code in RAM).
"""
import machine

from box.pico import PicoHw


def build(pinmap=None):
    """The Pico's hw, its parts on the pins of the map (read when not given)."""
    from box import pins   # imported here: a power-up module, let go after it (box.powerup)
    m = pinmap or pins.load()
    bus = m["i2c"]
    i2c = machine.I2C(bus["id"], sda=machine.Pin(bus["sda"]), scl=machine.Pin(bus["scl"]),
                      freq=bus["freq"])
    kp = m["keypad"]
    rows = [machine.Pin(g, machine.Pin.OPEN_DRAIN, value=1) for g in kp["rows"]]
    cols = [machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP) for g in kp["cols"]]
    buttons = [(name, machine.Pin(g, machine.Pin.IN, machine.Pin.PULL_UP))
               for name, g in pins.buttons(m)]
    g = pins.buzzer_gpio(m)
    return PicoHw(i2c, rows, cols, buttons, machine.PWM(machine.Pin(g)) if g is not None else None)

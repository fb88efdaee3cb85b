"""Mistakes in a pin map (pinmap.json as box.pins loads it): for the self-test (`matchbox
doctor`) and the tests, so that the box does not keep this code in its heap while it plays."""
from box.pins import KINDS, addresses, buttons, buzzer_gpio, displays

GPIO_MAX = 28
RESERVED = (23, 24, 25, 29)  # used by the board itself (SMPS, VBUS sense, LED/wireless, VSYS)


def used(m):
    """List of (gpio, label) for every GPIO the map uses."""
    i2c = m["i2c"]
    out = [(i2c["sda"], "SDA"), (i2c["scl"], "SCL")]
    kp = m["keypad"]
    for i, g in enumerate(kp["rows"]):
        out.append((g, "ROW%d" % (i + 1)))
    for i, g in enumerate(kp["cols"]):
        out.append((g, "COL%d" % (i + 1)))
    for name, g in buttons(m):
        out.append((g, name))
    g = buzzer_gpio(m)
    if g is not None:
        out.append((g, "BUZZER"))
    return out


def problems(m):
    """Human-readable list of mistakes in the map (empty when it is consistent)."""
    errs = []
    seen = {}
    for g, label in used(m):
        if not (0 <= g <= GPIO_MAX) or g in RESERVED:
            errs.append("%s: GP%d is not a free GPIO" % (label, g))
        if g in seen:
            errs.append("GP%d used by both %s and %s" % (g, seen[g], label))
        seen[g] = label
    i2c = m["i2c"]
    bus, sda, scl = i2c["id"], i2c["sda"], i2c["scl"]
    # RP2040/RP2350: SDA on an even GPIO 2k, SCL on 2k + 1, block I2C(k % 2).
    if sda % 2 or scl != sda + 1 or (sda // 2) % 2 != bus:
        errs.append("GP%d/GP%d are not an SDA/SCL pair of I2C%d" % (sda, scl, bus))
    addrs = addresses(m)
    if not 1 <= len(addrs) <= 4:
        errs.append("1 to 4 displays expected")
    for kind, _a in displays(m):
        if kind not in KINDS:
            errs.append("display kind %r has no driver (known: %s)" % (kind, ", ".join(KINDS)))
    for a in addrs:
        if not 0x70 <= a <= 0x77:
            errs.append("display address %d is not an HT16K33 address (112..119)" % a)
    if len(set(addrs)) != len(addrs):
        errs.append("two displays share an address")
    kp = m["keypad"]
    if len(kp["rows"]) != 4 or len(kp["cols"]) != 4 or len(kp["legend"]) != 4:
        errs.append("keypad must be 4x4")
    faces = "".join(kp["legend"])
    if sorted(faces) != sorted("0123456789ABCDEF"):
        errs.append("keypad legend must hold each of 0-F once")
    names = [n for n, _ in buttons(m)]
    if m.get("maintenance_key") not in names:
        errs.append("maintenance_key must be one of the buttons")
    return errs

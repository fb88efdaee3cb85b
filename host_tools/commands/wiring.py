"""`matchbox wiring`: draw the wiring diagram from the pin map (--check: is hardware/wiring.svg current?).

`matchbox wiring -o FILE` writes the diagram to FILE (default wiring.svg in the current
folder; in the repository, `-o hardware/wiring.svg` after editing the map).

The drawing is SVG written with host_tools.svg (over the standard library). Layout: the
display backpacks in a band on top with their I2C bus, the Pico in the middle with every
header pin named, and each other part beside the header side its pins are on, level with
them where possible, so most wires are straight lines.
"""
import json
import os
import sys

from host_tools import files, resources
from host_tools import svg as writer
from host_tools.errors import check_input

MAP_PATH = resources.PINMAP
SVG_PATH = os.path.join(resources.HARDWARE, "wiring.svg")  # the diagram shipped with the map
DEFAULT_OUTPUT = "wiring.svg"

# Pico / Pico W / Pico 2 header, physical pins 1..40 (1-20 down the left, 21-40 up the right).
HEADER = (
    "GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7",
    "GP8", "GP9", "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",
    "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",
    "GP26", "GP27", "GND", "GP28", "ADC_VREF", "3V3(OUT)", "3V3_EN", "GND", "VSYS", "VBUS",
)
PIN_VBUS, PIN_GND, PIN_3V3 = 40, 38, 36

COLORS = {"i2c": "#1f6fd1", "row": "#e07b00", "col": "#2a9d3a", "button": "#8a3fc7",
          "buzzer": "#a0522d", "3v3": "#d62728", "vbus": "#b8002e", "gnd": "#222222"}

W = 1200
PITCH = 28
PICO_X, PICO_W, PIN_TOP = 480, 240, 300
LEFT_BLOCK = (40, 300)  # x range of the parts left of the Pico
RIGHT_BLOCK = (900, 1160)
BOX_Y, BOX_W, BOX_H, BOX_STEP = 70, 260, 112, 285
BUS = {"SCL": 225, "SDA": 239}  # y of the two I2C bus lines


def physical(gpio):
    """Header pin number (1..40) of a GPIO."""
    return HEADER.index("GP%d" % gpio) + 1


def pin_side_y(pin):
    """('left' or 'right', y) of a header pin."""
    if pin <= 20:
        return "left", PIN_TOP + (pin - 1) * PITCH
    return "right", PIN_TOP + (40 - pin) * PITCH


def jumpers(address):
    """Address jumpers to bridge on a backpack for 0x70..0x77."""
    bits = address - 0x70
    names = [n for i, n in enumerate(("A0", "A1", "A2")) if bits >> i & 1]
    return "+".join(names) if names else "none"


class Svg:
    """The drawing's shapes and text, in a stable order, added to an element (host_tools.svg)."""

    def __init__(self, node):
        self.node = node

    def group(self, **attrs):
        """A Svg drawing into a new <g> (a transform, say)."""
        return Svg(writer.add(self.node, "g", **attrs))

    def line(self, x1, y1, x2, y2, color="#222", width=2):
        writer.add(self.node, "line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=color, stroke_width=width)

    def path(self, d, color, width=2):
        """A path: d is path data, or a list of (x, y) points joined by straight lines."""
        if not isinstance(d, str):
            d = " ".join("%s%d,%d" % ("M" if i == 0 else "L", x, y) for i, (x, y) in enumerate(d))
        writer.add(self.node, "path", d=d, fill="none", stroke=color, stroke_width=width)

    def rect(self, x, y, w, h, fill="#fff", stroke="#222", rx=6, width=1.5):
        writer.add(self.node, "rect", x=x, y=y, width=w, height=h, rx=rx, fill=fill, stroke=stroke,
                stroke_width=width)

    def circle(self, x, y, r, fill="#222", stroke="none"):
        writer.add(self.node, "circle", cx=x, cy=y, r=r, fill=fill, stroke=stroke, stroke_width=1.5)

    def text(self, x, y, s, size=12, anchor="start", weight="normal", color="#222"):
        writer.add(self.node, "text", s, x=x, y=y, font_size=size, text_anchor=anchor,
                font_weight=weight, fill=color)

    def gnd(self, x, y):
        """Ground symbol hanging from (x, y)."""
        self.line(x, y, x, y + 8, COLORS["gnd"])
        for i, half in enumerate((9, 6, 3)):
            self.line(x - half, y + 8 + 3 * i, x + half, y + 8 + 3 * i, COLORS["gnd"], 1.5)


def parts(m):
    """The parts wired to GPIOs: list of (kind, name, [(header pin, terminal, gpio)])."""
    kp = m["keypad"]
    out = []
    terms = [(physical(g), "R%d" % (i + 1), g) for i, g in enumerate(kp["rows"])]
    terms += [(physical(g), "C%d" % (i + 1), g) for i, g in enumerate(kp["cols"])]
    out.append(("keypad", "keypad", terms))
    for b in m["buttons"]:
        out.append(("button", b["name"], [(physical(b["gpio"]), b["name"], b["gpio"])]))
    if m.get("buzzer"):
        g = m["buzzer"]["gpio"]
        out.append(("buzzer", "piezo", [(physical(g), "BUZ", g)]))
    out.append(("power", "power", [(PIN_VBUS, "VBUS", None), (PIN_GND, "GND", None),
                                   (PIN_3V3, "3V3", None)]))
    return out


def draw_pico(svg, color_of):
    """The board with all 40 header pins; color_of maps each wired header pin to its color."""
    x, top = PICO_X, PIN_TOP - 30
    height = 20 * PITCH + 32
    svg.rect(x, top, PICO_W, height, fill="#e9f5ea", stroke="#2f6b34", rx=10, width=2)
    svg.rect(x + PICO_W // 2 - 28, top - 22, 56, 26, fill="#c9c9c9", stroke="#555", rx=3)
    svg.text(x + PICO_W // 2, top - 5, "USB", 11, "middle")
    mid, cy = x + PICO_W // 2, top + height // 2
    turned = svg.group(transform="rotate(-90 %d %d)" % (mid, cy))
    turned.text(mid, cy - 4, "Raspberry Pi Pico", 16, "middle", "bold", "#2f6b34")
    turned.text(mid, cy + 14, "(Pico W, Pico 2: same header)", 11, "middle", color="#2f6b34")
    for pin in range(1, 41):
        side, y = pin_side_y(pin)
        name = HEADER[pin - 1]
        net = color_of.get(pin)
        color = net or ("#222" if name in ("GND", "3V3(OUT)", "VBUS") else "#888")
        weight = "bold" if net else "normal"
        if side == "left":
            svg.rect(x - 6, y - 6, 12, 12, fill="#fff" if not net else color, stroke="#555", rx=2, width=1)
            svg.text(x + 10, y + 4, "%d" % pin, 10, "start", color="#666")
            svg.text(x + 30, y + 4, name, 12, "start", weight, color)
        else:
            svg.rect(x + PICO_W - 6, y - 6, 12, 12, fill="#fff" if not net else color, stroke="#555",
                     rx=2, width=1)
            svg.text(x + PICO_W - 10, y + 4, "%d" % pin, 10, "end", color="#666")
            svg.text(x + PICO_W - 30, y + 4, name, 12, "end", weight, color)


def draw_displays(svg, m):
    """Backpacks in a band on top, their D/C pins dropping to the bus lines; returns the
    x of every drop."""
    i2c = m["i2c"]
    svg.text(40, 56, "I2C%d at %d kHz: SDA GP%d, SCL GP%d; HT16K33 backpacks, addresses 0x70 up"
             % (i2c["id"], i2c["freq"] // 1000, i2c["sda"], i2c["scl"]), 13, weight="bold",
             color=COLORS["i2c"])
    drops = []
    for i, d in enumerate(m["displays"]):
        x = 40 + i * BOX_STEP
        svg.rect(x, BOX_Y, BOX_W, BOX_H, fill="#fff8e6", stroke="#8a6d1f")
        addr = d["address"]
        svg.text(x + 10, BOX_Y + 20, "display %d   0x%02X (%d)" % (i + 1, addr, addr), 13, weight="bold")
        head, _, tail = d["role"].partition(":")
        svg.text(x + 10, BOX_Y + 38, head + (":" if tail else ""), 11)
        if tail:
            svg.text(x + 10, BOX_Y + 52, tail.strip(), 11)
        svg.text(x + 10, BOX_Y + 70, "address jumpers bridged: %s" % jumpers(addr), 11, color="#8a6d1f")
        for j, (label, net) in enumerate((("+", "3v3"), ("-", "gnd"), ("D", "SDA"), ("C", "SCL"))):
            px = x + 30 + j * 55
            svg.text(px, BOX_Y + BOX_H - 10, label, 13, "middle", "bold")
            if net in BUS:
                svg.line(px, BOX_Y + BOX_H, px, BUS[net], COLORS["i2c"])
                svg.circle(px, BUS[net], 4, COLORS["i2c"])
                drops.append(px)
            else:
                svg.line(px, BOX_Y + BOX_H, px, BOX_Y + BOX_H + 12, COLORS[net])
                svg.text(px + 4, BOX_Y + BOX_H + 24, "3V3*" if net == "3v3" else "GND", 10, "middle",
                         color=COLORS[net])
    return drops


def draw_i2c(svg, m, drops):
    """SDA/SCL from the header out to a lane each, up to the bus lines. The upper pin takes
    the inner lane and the lower bus line, so the only crossing (outer lane over the lower
    bus line) gets a hop."""
    i2c = m["i2c"]
    pins = sorted((pin_side_y(physical(i2c[k]))[1], k.upper()) for k in ("sda", "scl"))
    lanes = []
    for n, (y, label) in enumerate(pins):
        side = pin_side_y(physical(i2c[label.lower()]))[0]
        x = PICO_X if side == "left" else PICO_X + PICO_W
        out = -1 if side == "left" else 1
        lane = x + out * (40 + 14 * n)
        bus = BUS[label]
        lanes.append(lane)
        d = "M%d,%d L%d,%d" % (x, y, lane, y)
        other = BUS["SDA" if label == "SCL" else "SCL"]
        if bus < other < y:
            d += " L%d,%d A6,6 0 0,%d %d,%d" % (lane, other + 6, 1 if side == "left" else 0, lane,
                                                other - 6)
        d += " L%d,%d" % (lane, bus)
        svg.path(d, COLORS["i2c"])
        svg.circle(lane, bus, 4, COLORS["i2c"])
        svg.text(x + out * 72, y + 4, "%s GP%d" % (label, i2c[label.lower()]), 11,
                 "end" if side == "left" else "start", "bold", COLORS["i2c"])
    left, right = min(drops + lanes), max(drops + lanes)
    for label, y in sorted(BUS.items()):
        svg.line(left, y, right, y, COLORS["i2c"])
        svg.text(right + 8, y + 4, label, 11, color=COLORS["i2c"])


def draw_part(svg, kind, name, side, top, terms, m):
    """One part's block; terms = [(terminal y, terminal label)]. Returns the block bottom."""
    x0, x1 = LEFT_BLOCK if side == "left" else RIGHT_BLOCK
    edge = x1 if side == "left" else x0  # where the wires arrive
    inward = -1 if side == "left" else 1  # direction from the edge into the block
    if kind == "keypad":
        bottom = terms[-1][0] + 24
        svg.rect(x0, top, x1 - x0, bottom - top, fill="#f3f3f3")
        svg.text(x0 + 10, top + 18, "4x4 membrane keypad", 13, weight="bold")
        legend = m["keypad"]["legend"]
        gx = x0 + 14 if side == "left" else x0 + 120
        for r, row in enumerate(legend):
            for c, ch in enumerate(row):
                svg.rect(gx + c * 30, top + 32 + r * 30, 26, 26, fill="#fff", rx=4)
                svg.text(gx + c * 30 + 13, top + 50 + r * 30, ch, 13, "middle", "bold")
        for i, line in enumerate(("R1-R4: rows, top to bottom; driven",
                                  "low one at a time (open drain)",
                                  "C1-C4: columns, left to right;",
                                  "inputs with internal pull-ups",
                                  "usual 8-pin connector: R1-R4, C1-C4")):
            svg.text(gx, top + 166 + 13 * i, line, 10)
        for y, label in terms:
            svg.text(edge + inward * 8, y + 4, label, 12, "end" if side == "left" else "start", "bold",
                     COLORS["row" if label[0] == "R" else "col"])
        return bottom
    if kind == "power":
        bottom = terms[-1][0] + 16
        svg.rect(x0, top, x1 - x0, bottom - top, fill="#fdeeee", stroke="#b8002e")
        notes = {"VBUS": "5 V from USB: backpack + only if it has an IO pin",
                 "GND": "common ground: backpacks, buttons, piezo",
                 "3V3": "3.3 V: backpack IO (or + without IO pin)"}
        for y, label in terms:
            svg.text(edge + inward * 8, y - 2, label, 12, "start" if side == "right" else "end", "bold",
                     COLORS[label.lower()])
            svg.text(edge + inward * 8, y + 11, notes[label], 10, "start" if side == "right" else "end")
        return bottom
    # a button or the piezo: GPIO -> part -> GND, one terminal
    y = terms[0][0]
    color = COLORS["buzzer" if kind == "buzzer" else "button"]
    sx = edge + inward * 40
    svg.line(edge, y, sx, y, color)
    if kind == "button":
        svg.circle(sx, y, 3, "#fff", color)
        svg.circle(sx + inward * 30, y, 3, "#fff", color)
        svg.line(sx + inward * 2, y - 4, sx + inward * 28, y - 12, color)
        end = sx + inward * 30
        label = "%s button" % name
    else:
        svg.rect(min(sx, sx + inward * 30), y - 10, 30, 20, fill="#fff", stroke=color, rx=10)
        svg.text(sx + inward * 15, y + 4, "~", 13, "middle", color=color)
        end = sx + inward * 30
        label = "piezo (passive), PWM"
    svg.line(end, y, end + inward * 30, y, color)
    svg.gnd(end + inward * 30, y)
    svg.text(end + inward * 50, y + 4, label, 12, "start" if side == "right" else "end", "bold", color)
    return y + 12


def draw_side(svg, m, side, entries, color_of):
    """Parts on one side, top to bottom, and their wires; returns the lowest y drawn.
    entries: [(first pin y, kind, name, terms)]; color_of: header pin -> wire color."""
    bottom = 0
    bends = 0
    edge = LEFT_BLOCK[1] if side == "left" else RIGHT_BLOCK[0]
    for first_y, kind, name, terms in sorted(entries, key=lambda t: t[0]):
        pad = 30 if kind in ("keypad", "power") else 0
        top = max(first_y - pad, bottom + 10)
        # each terminal level with its pin when there is room, else lower
        placed = []
        last = top + pad - PITCH
        for p, label, g in terms:
            pside, py = pin_side_y(p)
            y = max(py if pside == side else 0, last + PITCH)
            placed.append((p, y, label, g))
            last = y
        bottom = draw_part(svg, kind, name, side, top, [(y, label) for _, y, label, _ in placed], m)
        for p, y, label, g in placed:
            pside, py = pin_side_y(p)
            color = color_of[p]
            x = PICO_X if pside == "left" else PICO_X + PICO_W
            if pside != side:  # pin on the other header side: a labelled stub, no wire
                end = x - 60 if pside == "left" else x + 60
                svg.line(x, py, end, py, color)
                svg.text(end, py - 4, "to %s %s" % (name, label), 10, "middle", color=color)
                continue
            if py == y:
                svg.line(x, py, edge, y, color)
            else:
                # wires only ever bend downwards: the first one takes the lane nearest the
                # parts, so later ones never cross it
                lane = edge + 20 + 10 * bends if side == "left" else edge - 20 - 10 * bends
                bends += 1
                svg.path([(x, py), (lane, py), (lane, y), (edge, y)], color)
            if g is not None:
                svg.text((x + edge) // 2, py - 5, "GP%d" % g, 11, "middle", "bold", color)
    return bottom


def render(m):
    """The whole diagram as SVG text."""
    root = writer.document(W, 0, "", font_family="Helvetica, Arial, sans-serif")  # height: below
    writer.add(root, "rect", width="100%", height="100%", fill="#ffffff")
    svg = Svg(root)
    svg.text(W // 2, 28, "Matchbox wiring (generated from %s by `matchbox wiring`)" % resources.PINMAP_SOURCE,
             16, "middle", "bold")
    i2c = m["i2c"]
    color_of = {physical(i2c["sda"]): COLORS["i2c"], physical(i2c["scl"]): COLORS["i2c"]}
    entries = {"left": [], "right": []}
    for kind, name, terms in parts(m):
        sides = [pin_side_y(p)[0] for p, _, _ in terms]
        side = max(("left", "right"), key=lambda s: (sides.count(s), s == sides[0]))
        entries[side].append((min(pin_side_y(p)[1] for p, _, _ in terms), kind, name, terms))
        for p, label, _ in terms:
            net = {"keypad": "row" if label[0] == "R" else "col", "power": label.lower()}.get(kind, kind)
            color_of[p] = COLORS[net]
    draw_pico(svg, color_of)
    draw_i2c(svg, m, draw_displays(svg, m))
    lowest = max(draw_side(svg, m, side, entries[side], color_of) for side in ("left", "right"))

    notes = [
        "Logic is 3.3 V: nothing may pull SDA/SCL or any GPIO above 3.3 V.",
        "* Backpack power: + to 3V3 (pin 36). On backpacks with an IO pin: IO to 3V3 and + may go to VBUS 5 V (pin 40).",
        "The backpacks' own 10 kOhm I2C pull-ups go to that 3.3 V supply; no extra pull-ups needed.",
        "Buttons and keypad use the Pico's internal pull-ups; buttons connect their GPIO to GND (active low).",
        "Hold %s while powering up to enter maintenance mode." % m["maintenance_key"],
    ]
    y = max(lowest, PIN_TOP + 20 * PITCH) + 40
    for line in notes:
        svg.text(40, y, line, 12)
        y += 18
    root.set("height", str(y + 4))
    root.set("viewBox", "0 0 %d %d" % (W, y + 4))
    return writer.to_text(root)


def check(svg_path=SVG_PATH, map_path=MAP_PATH):
    """Whether the SVG file on disk is what the map generates now."""
    with open(map_path) as f:
        want = render(json.load(f))
    if not os.path.exists(svg_path):
        return False
    check_input(svg_path)     # a folder, a FIFO, a device: said, not read
    with open(svg_path) as f:
        return f.read() == want


def write(svg_path=SVG_PATH, map_path=MAP_PATH):
    with open(map_path) as f:
        text = render(json.load(f))
    files.write_whole(svg_path, text, inputs=[map_path])


def add_arguments(parser):
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="where to write the diagram (default: %s in the current folder); "
                             "with --check, the file to check" % DEFAULT_OUTPUT)
    parser.add_argument("--check", action="store_true",
                        help="only check that hardware/wiring.svg (or -o FILE) is up to date "
                             "(exit 1 if not)")


def run(args):
    output = getattr(args, "output", None)
    if args.check:
        target = output or SVG_PATH
        shown = output or "hardware/wiring.svg"
        if check(target):
            print("%s is up to date" % shown)
            return 0
        print("%s is out of date: run `matchbox wiring -o %s`" % (shown, shown), file=sys.stderr)
        return 1
    output = output or DEFAULT_OUTPUT
    write(output)
    print("wrote %s" % output)
    return 0

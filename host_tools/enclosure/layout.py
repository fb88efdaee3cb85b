"""Where everything goes: the case and its parts placed from the pin map and the parts table,
in plain numbers (millimetres), with no CAD library.

A YAPP-style parametric box (board, padding, walls, cut-outs): a tray printed floor down and a
flat lid printed top face up, joined by four M3 screws into heat-set inserts in the tray's
corner bosses. On the lid, seen from the maker's side (the front, y = 0): the membrane keypad
on the left (stuck on the lid, its tail through a slot behind it), the buttons right of it in
columns of four, each with its name engraved under it; behind them the displays in rows of two
behind windows, in the firmware's order (display 1 back left, then reading order), and the
piezo's sound holes beside them. Under the lid: the Pico on standoffs under the keypad, its
USB socket at the left wall, the buttons on a perfboard on posts, the displays in cradles.

Every part is a list of primitives (boxes and cylinders) in the case's frame at its largest
(grown by its tolerance, its resting face kept): the checks then prove the stated clearances
hold for the worst part. A printed part is a list of ("add" | "cut", shape): the union of its
adds less the union of its cuts (the tray's first add is its shell: walls and floor).
`assembly()` is the JSON the command writes (assembly.json).
"""
import json
import math

from host_tools import errors, resources
from host_tools.enclosure.parts import SOURCE as PARTS_SOURCE
from host_tools.errors import MatchboxError

MAX_PINMAP = 64 * 1024

RULES = {
    "bed": (220.0, 220.0),      # the printer's bed, mm
    "min_wall": 2.0,            # no printed wall thinner
    "max_overhang": 45.0,       # degrees from vertical a face may lean out unsupported
    "wall": 2.4,
    "floor": 2.0,
    "lid": 3.5,
    "hole_allowance": 0.2,      # added to every hole: small holes print undersized
    "clearance": 0.5,           # between a part and the case where it does not rest
    "margin": 10.5,             # from the outer edge to anything on the lid (screw heads)
    "boss": 9.0,                # corner boss diameter
    "boss_inset": 5.4,          # boss and screw centre from the outer edges
    "button_pitch": (24.0, 20.0),
    "button_rows": 4,
    "button_proud": 2.0,        # cap top over the lid top
    "finger": 18.0,             # least distance between two actuators of different parts
    "display_gap": (8.0, 11.0),
    "window_margin": 1.8,       # the window beyond the digit area, each side
    "window_straight": 1.5,     # straight part of the window over the lid's underside
    "view_tilt": 30.0,          # degrees from straight on the digits must be seen at
    "engrave": (3.5, 0.6),      # label text height, depth
    "standoff": 5.0,            # the Pico's standoffs
    "face_gap": 0.2,            # the largest display's face under the lid
}


def box(x0, y0, z0, x1, y1, z1):
    return {"box": [min(x0, x1), min(y0, y1), min(z0, z1), max(x0, x1), max(y0, y1), max(z0, z1)]}


def cyl(cx, cy, z0, z1, d):
    return {"cyl": [cx, cy, z0, z1, d]}


def keepout(shape):
    """A primitive that is room a part needs (its wires, legs, solder), not the part itself:
    checked like the part, drawn dashed."""
    return dict(shape, keepout=True)


def bbox(shapes):
    """[[xmin, ymin, zmin], [xmax, ymax, zmax]] of a list of primitives."""
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    for s in shapes:
        if "box" in s or "shell" in s:
            b = s.get("box") or s["shell"]
            pts = (b[:3], b[3:6])
        elif "cyl" in s:
            cx, cy, z0, z1, d = s["cyl"]
            pts = ((cx - d / 2, cy - d / 2, z0), (cx + d / 2, cy + d / 2, z1))
        else:
            continue
        for p in pts:
            lo = [min(a, b) for a, b in zip(lo, p)]
            hi = [max(a, b) for a, b in zip(hi, p)]
    return [lo, hi]


def read_pinmap(path):
    """The pin map at path, as the firmware would accept it; MatchboxError otherwise."""
    data = errors.read_bounded(path, MAX_PINMAP, "pin map")
    try:
        m = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MatchboxError("--pinmap %s" % path, "not JSON: %s" % exc) from None
    try:
        problems = resources.firmware_module("box.pincheck").problems(m)
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise MatchboxError("--pinmap %s" % path, "not a pin map (%s %s missing or wrong)"
                            % (type(exc).__name__, exc)) from None
    if problems:
        raise MatchboxError("--pinmap %s" % path, "; ".join(problems))
    return m


class LayoutError(ValueError):
    """A pin map the case cannot be made for (too many buttons for the bed, say)."""


class Layout:
    """The case and its parts for one pin map (see the module docstring)."""

    def __init__(self, pinmap, parts, rules=None):
        self.m = pinmap
        self.p = parts
        self.r = dict(RULES, **(rules or {}))
        self.parts = []        # {"name", "kind", "shapes", "rests_on", ...}
        self.tray = []         # ("add" | "cut", shape)
        self.lid = []
        self.openings = []
        self.labels = []
        self.displays = []
        self.actuators = []
        self._plan()

    # --- helpers -----------------------------------------------------------------------------

    def v(self, part, name):
        return self.p.value(part, name)

    def t(self, part, name):
        return self.p.tol(part, name)

    def hole(self, d):
        return d + self.r["hole_allowance"]

    def add_part(self, name, kind, shapes, **extra):
        self.parts.append(dict(name=name, kind=kind, shapes=shapes, **extra))

    # --- the plan ----------------------------------------------------------------------------

    def _plan(self):
        r = self.r
        n_buttons = len(self.m["buttons"])
        n_displays = len(self.m["displays"])
        if not 1 <= n_displays <= 4:
            raise LayoutError("the case holds 1 to 4 displays, the pin map has %d" % n_displays)
        if n_buttons < 1:
            raise LayoutError("the pin map names no buttons")
        self.buzzer = bool(self.m.get("buzzer"))
        wall, floor, lid = r["wall"], r["floor"], r["lid"]
        margin = r["margin"]
        kw, kd, _ = self.v("keypad", "body")

        # heights
        board_t = self.v("pico", "board")[2] + self.t("pico", "board")
        wiring = self.v("pico", "wiring_above") + self.t("pico", "wiring_above")
        inner = math.ceil((r["standoff"] + board_t + wiring + 0.4) * 2) / 2
        self.inner = inner
        self.lid_bottom = floor + inner
        self.lid_top = self.lid_bottom + lid
        self.height = self.lid_top

        # front zone: keypad, then the buttons in columns of four
        bx_pitch, by_pitch = r["button_pitch"]
        cols = math.ceil(n_buttons / r["button_rows"])
        rows = math.ceil(n_buttons / cols)
        kx0, ky0 = margin, margin
        hole_d = self.hole(self.v("button", "cap")[0] + 2 * self.t("button", "cap") + 0.8)
        label_h = r["engrave"][0]
        block_h = (rows - 1) * by_pitch + hole_d / 2 + 3.5 + label_h + 1.0
        front_h = max(kd, block_h)
        kcy = ky0 + front_h / 2
        ky0 = kcy - kd / 2
        block_x0 = kx0 + kw + 6.0
        width_front = block_x0 + cols * bx_pitch + margin - 2.0

        # back zone: the tail slot, then the displays (and the piezo beside them)
        slot_y0 = ky0 + kd + 1.0
        conn = self.v("keypad", "connector")
        ctol = self.t("keypad", "connector")
        slot = (self.hole(conn[0] + 2 * ctol + 1.0), self.hole(conn[1] + 2 * ctol + 1.0))
        pcb = self.v("display", "pcb")
        gx, gy = r["display_gap"]
        dcols = 1 if n_displays == 1 else 2
        drows = math.ceil(n_displays / dcols)
        block_w = dcols * pcb[0] + (dcols - 1) * gx
        piezo_w = 17.0
        back_w = block_w + (gx + piezo_w if self.buzzer else 0.0)
        width = max(width_front, 2 * margin + back_w)
        back_y0 = slot_y0 + slot[1] + 5.0
        depth = back_y0 + drows * pcb[1] + (drows - 1) * gy + margin
        bed = r["bed"]
        if width > bed[0] or depth > bed[1]:
            raise LayoutError("a case of %.0f x %.0f mm does not fit the %.0f x %.0f mm bed "
                              "(%d buttons, %d displays)" % (width, depth, bed[0], bed[1],
                                                             n_buttons, n_displays))
        self.width, self.depth = round(width, 2), round(depth, 2)

        self._case()
        self._keypad(kx0, ky0, slot_y0, slot)
        self._buttons(block_x0, kcy, cols, rows, hole_d)
        dx0 = (self.width - back_w) / 2
        self._displays(dx0, back_y0, dcols, drows)
        if self.buzzer:
            self._piezo(dx0 + block_w + gx + piezo_w / 2, self.depth - margin - pcb[1] / 2)
        self._pico(kcy)

    def _case(self):
        r = self.r
        W, D, wall, floor = self.width, self.depth, r["wall"], r["floor"]
        self.tray.append(("add", {"shell": [0, 0, 0, W, D, self.lid_bottom, wall, floor]}))
        self.lid.append(("add", box(0, 0, self.lid_bottom, W, D, self.lid_top)))
        ins = self.r["boss_inset"]
        hole_d, hole_depth = self.v("insert", "hole")
        screw = self.hole(self.v("insert", "screw_clearance"))
        for i, (x, y) in enumerate(((ins, ins), (W - ins, ins), (ins, D - ins), (W - ins, D - ins))):
            self.tray.append(("add", cyl(x, y, 0, self.lid_bottom, r["boss"])))
            self.tray.append(("cut", cyl(x, y, self.lid_bottom - hole_depth, self.lid_bottom + 1,
                                         self.hole(hole_d))))
            self.lid.append(("cut", cyl(x, y, self.lid_bottom - 1, self.lid_top + 1, screw)))
            self.openings.append(dict(name="screw %d" % (i + 1), kind="screw", part="lid",
                                      centre=[x, y], size=[screw, screw]))

    def _keypad(self, x0, y0, slot_y0, slot):
        kw, kd, kt = self.v("keypad", "body")
        tol = self.t("keypad", "body")
        top = self.lid_top
        cx, cy = x0 + kw / 2, y0 + kd / 2
        tail_w = self.v("keypad", "tail")[0] + 2 * self.t("keypad", "tail")
        sy = slot_y0 + slot[1] / 2
        shapes = [box(x0 - tol, y0 - tol, top, x0 + kw + tol, y0 + kd + tol, top + kt + tol),
                  # the tail over the lid to the slot, then down through it
                  box(cx - tail_w / 2, y0 + kd, top, cx + tail_w / 2, sy + 0.3, top + 0.3),
                  box(cx - tail_w / 2, sy - 0.3, self.lid_bottom - 15, cx + tail_w / 2, sy + 0.3,
                      top + 0.3)]
        pitch = self.v("keypad", "key_pitch")
        gx, gy = cx, cy - 2.0
        keys = []
        for row, faces in enumerate(self.m["keypad"]["legend"]):
            for col, face in enumerate(faces):
                kx = gx + (col - 1.5) * pitch[0]
                ky = gy + (1.5 - row) * pitch[1]
                keys.append(face)
                self.actuators.append(dict(name="key %s" % face, part="keypad", centre=[kx, ky],
                                           top=top + kt, size=self.v("keypad", "key_size")))
        self.add_part("keypad", "keypad", shapes, rests_on="lid", keys=keys,
                      footprint=[x0, y0, x0 + kw, y0 + kd])
        self.lid.append(("cut", box(cx - slot[0] / 2, slot_y0, self.lid_bottom - 1,
                                    cx + slot[0] / 2, slot_y0 + slot[1], self.lid_top + 1)))
        self.openings.append(dict(name="keypad tail", kind="slot", part="lid", centre=[cx, sy],
                                  size=list(slot), fits="keypad connector %.1f x %.1f mm"
                                  % tuple(self.v("keypad", "connector")[:2])))

    def _buttons(self, x0, cy, cols, rows, hole_d):
        r = self.r
        px, py = r["button_pitch"]
        bw, bd, bh = self.v("button", "body")
        btol = self.t("button", "body")
        cap_d, cap_top = self.v("button", "cap")
        ctol = self.t("button", "cap")
        board_t = self.v("perfboard", "thickness")
        board_tol = self.t("perfboard", "thickness")
        leads = self.v("button", "leads_below") + self.t("button", "leads_below")
        # the cap's nominal top is button_proud over the lid
        board_top = self.lid_top + r["button_proud"] - cap_top
        board_bottom = board_top - board_t
        top_of_board = board_bottom + board_t + board_tol
        centres = []
        for i, b in enumerate(self.m["buttons"]):
            row, col = divmod(i, cols)
            x = x0 + px / 2 + col * px
            y = cy + ((rows - 1) / 2 - row) * py
            centres.append((b["name"], x, y))
        for name, x, y in centres:
            body_top = top_of_board + bh + btol
            shapes = [box(x - bw / 2 - btol, y - bd / 2 - btol, top_of_board,
                          x + bw / 2 + btol, y + bd / 2 + btol, body_top),
                      cyl(x, y, body_top + 0.5, top_of_board + cap_top + ctol, cap_d + 2 * ctol),
                      # the legs and their solder under the board
                      keepout(box(x - bw / 2 - btol, y - 3.0, board_bottom - leads,
                                  x + bw / 2 + btol, y + 3.0, board_bottom))]
            self.add_part("button %s" % name, "button", shapes, rests_on="perfboard",
                          button=name)
            self.actuators.append(dict(name=name, part="button %s" % name, centre=[x, y],
                                       top=board_top + cap_top, size=cap_d))
            self.lid.append(("cut", cyl(x, y, self.lid_bottom - 1, self.lid_top + 1, hole_d)))
            self.openings.append(dict(name="button %s" % name, kind="button", part="lid",
                                      centre=[x, y], size=[hole_d, hole_d]))
            label_y = y - hole_d / 2 - 1.5 - r["engrave"][0] / 2
            self.labels.append(dict(text=name, part="lid", centre=[x, label_y],
                                    height=r["engrave"][0], depth=r["engrave"][1]))
            self.lid.append(("cut", {"text": [name, x, label_y, r["engrave"][0],
                                              self.lid_top - r["engrave"][1], self.lid_top + 1]}))
        xs = [x for _, x, _ in centres]
        ys = [y for _, _, y in centres]
        edge = 11.0
        bx0, bx1 = min(xs) - edge, max(xs) + edge
        by0, by1 = min(ys) - edge, max(ys) + edge
        self.add_part("perfboard", "perfboard",
                      [box(bx0, by0, board_bottom, bx1, by1, top_of_board)], rests_on="tray",
                      cut_to=[round(bx1 - bx0, 1), round(by1 - by0, 1)])
        pilot = self.hole(self.v("small_screw", "pilot"))
        for x in (bx0 + 3.0, bx1 - 3.0):
            for y in (by0 + 3.0, by1 - 3.0):
                self.tray.append(("add", box(x - 3, y - 3, 0, x + 3, y + 3, board_bottom)))
                self.tray.append(("cut", cyl(x, y, board_bottom - 6, board_bottom + 1, pilot)))

    def _displays(self, x0, y_front, cols, rows):
        r = self.r
        pcb = self.v("display", "pcb")
        ptol = self.t("display", "pcb")
        mod = self.v("display", "module")
        mtol = self.t("display", "module")
        area = self.v("display", "digit_area")
        atol = self.t("display", "digit_area")
        under = self.v("display", "underside") + self.t("display", "underside")
        end_free = self.v("display", "end_free")
        gx, gy = r["display_gap"]
        # the cradles hold the board so that the largest display's face is face_gap under the lid
        seat = self.lid_bottom - r["face_gap"] - (pcb[2] + ptol) - (mod[2] + mtol)
        lowest_face = seat + (pcb[2] - ptol) + (mod[2] - mtol)
        margin = r["window_margin"]
        straight = r["window_straight"]
        chamfer = self.r["lid"] - straight
        for i, d in enumerate(self.m["displays"]):
            row, col = divmod(i, cols)
            cx = x0 + pcb[0] / 2 + col * (pcb[0] + gx)
            cy = self.depth - r["margin"] - pcb[1] / 2 - row * (pcb[1] + gy)
            name = "display %d" % (i + 1)
            hx, hy = pcb[0] / 2 + ptol, pcb[1] / 2 + ptol
            mx, my = mod[0] / 2 + mtol, mod[1] / 2 + mtol
            shapes = [box(cx - hx, cy - hy, seat, cx + hx, cy + hy, seat + pcb[2] + ptol),
                      box(cx - mx, cy - my, seat + pcb[2] + ptol, cx + mx, cy + my,
                          seat + pcb[2] + ptol + mod[2] + mtol),
                      keepout(box(cx - pcb[0] / 2 + end_free, cy - hy, seat - under,
                                  cx + pcb[0] / 2 - end_free, cy + hy, seat))]
            self.add_part(name, "display", shapes, rests_on="tray", address=d["address"],
                          role=d.get("role", ""), index=i)
            self.displays.append(dict(name=name, index=i, address=d["address"],
                                      role=d.get("role", ""),
                                      digit_area=dict(centre=[cx, cy, lowest_face],
                                                      size=[area[0] + 2 * atol, area[1] + 2 * atol])))
            # the window: straight over the underside, then widening at 45 degrees to the top
            wx = area[0] / 2 + atol + margin
            wy = area[1] / 2 + atol + margin
            self.lid.append(("cut", box(cx - wx, cy - wy, self.lid_bottom - 1, cx + wx, cy + wy,
                                        self.lid_bottom + straight + 0.01)))
            self.lid.append(("cut", {"taper": [cx, cy, self.lid_bottom + straight,
                                               self.lid_top + 0.01, 2 * wx, 2 * wy, chamfer + 0.01]}))
            self.openings.append(dict(name="window %d" % (i + 1), kind="window", part="lid",
                                      centre=[cx, cy], size=[2 * wx, 2 * wy],
                                      top_size=[2 * (wx + chamfer), 2 * (wy + chamfer)],
                                      display=name))
            # cradles: a cup under each end of the board, its lips locating the board
            lip, lip_h = 2.0, 2.0
            for side in (-1, 1):
                end = cx + side * pcb[0] / 2
                inner = end - side * (end_free - 0.3)
                outer = end + side * (ptol + 0.3 + lip)
                y0, y1 = cy - hy - 0.3 - lip, cy + hy + 0.3 + lip
                self.tray.append(("add", box(inner, y0, 0, outer, y1, seat)))
                # lips: the end, and both long sides
                self.tray.append(("add", box(end + side * (ptol + 0.3), y0, seat, outer, y1,
                                             seat + lip_h)))
                for ys in ((y0, cy - hy - 0.3), (cy + hy + 0.3, y1)):
                    self.tray.append(("add", box(inner, ys[0], seat, outer, ys[1], seat + lip_h)))

    def _piezo(self, cx, cy):
        r = self.r
        dia, height = self.v("piezo", "body")
        tol = self.t("piezo", "body")
        pitch = self.v("piezo", "pin_pitch")
        pins = self.v("piezo", "pins_below") + self.t("piezo", "pins_below")
        floor = r["floor"]
        base = floor + pins + 0.5
        # a square cup (square: a slot through a round wall leaves knife edges): the piezo
        # rests on the inner ledge, its pins in the well, its wires out through the slot
        self.tray.append(("add", box(cx - 8.5, cy - 8.5, 0, cx + 8.5, cy + 8.5, base + 3.0)))
        well = 9.0 + r["hole_allowance"]
        self.tray.append(("cut", box(cx - well / 2, cy - well / 2, floor, cx + well / 2,
                                     cy + well / 2, base + 1)))
        pocket = self.hole(dia + 2 * tol + 0.2)
        self.tray.append(("cut", box(cx - pocket / 2, cy - pocket / 2, base, cx + pocket / 2,
                                     cy + pocket / 2, base + 4.0)))
        self.tray.append(("cut", box(cx - 1.5, cy - 9, floor + 1.0, cx + 1.5, cy, base + 4.0)))
        shapes = [cyl(cx, cy, base, base + height + tol, dia + 2 * tol),
                  keepout(box(cx - pitch / 2 - 0.5, cy - 0.6, base - pins, cx + pitch / 2 + 0.5,
                              cy + 0.6, base))]
        self.add_part("piezo", "piezo", shapes, rests_on="tray")
        hole = self.hole(2.0)
        for k in range(7):
            hx, hy = (cx, cy) if k == 0 else (cx + 4.5 * math.cos(math.pi / 3 * k),
                                             cy + 4.5 * math.sin(math.pi / 3 * k))
            self.lid.append(("cut", cyl(hx, hy, self.lid_bottom - 1, self.lid_top + 1, hole)))
        self.openings.append(dict(name="sound", kind="sound", part="lid", centre=[cx, cy],
                                  size=[9.0 + hole, 9.0 + hole]))

    def _pico(self, cy):
        r = self.r
        length, width, thick = self.v("pico", "board")
        btol = self.t("pico", "board")
        over = self.v("pico", "usb_overhang") + self.t("pico", "usb_overhang")
        sock = self.v("pico", "usb_socket")
        stol = self.t("pico", "usb_socket")
        wall, floor = r["wall"], r["floor"]
        x0 = wall + 0.6 + over + btol           # the board's USB edge
        z0 = floor + r["standoff"]
        top = z0 + thick + btol
        face = x0 - btol - over                 # the socket's face, at its farthest
        sz = top + sock[2] / 2                  # the socket's centre height
        wiring = self.v("pico", "wiring_above") + self.t("pico", "wiring_above")
        shapes = [box(x0 - btol, cy - width / 2 - btol, z0, x0 + length + btol, cy + width / 2 + btol, top),
                  box(face, cy - sock[1] / 2 - stol, top, face + sock[0] + stol,
                      cy + sock[1] / 2 + stol, top + sock[2] + stol),
                  # the jumpers on the header pins, and the solder under the board
                  keepout(box(x0 + sock[0], cy - width / 2 - btol, top, x0 + length + btol,
                              cy + width / 2 + btol, top + wiring)),
                  keepout(box(x0 + 5.5, cy - width / 2 + 0.5, z0 - self.v("pico", "solder_below") -
                              self.t("pico", "solder_below"), x0 + length - 5.5,
                              cy + width / 2 - 0.5, z0))]
        self.add_part("pico", "pico", shapes, rests_on="tray", usb=dict(
            face=[face, cy, sz], axis=[-1, 0, 0], socket=[sock[1], sock[2]]))
        pitch = self.v("pico", "hole_pitch")
        pilot = self.hole(self.v("small_screw", "pilot"))
        hx0 = x0 + (length - pitch[0]) / 2
        for hx in (hx0, hx0 + pitch[0]):
            for hy in (cy - pitch[1] / 2, cy + pitch[1] / 2):
                self.tray.append(("add", cyl(hx, hy, 0, z0, 6.0)))
                self.tray.append(("cut", cyl(hx, hy, z0 - 4.5, z0 + 1, pilot)))
        # the plug's overmold, mated: a part of its own, so nothing may stand in its way
        ow, oh, ol = self.v("usb_plug", "overmold")
        self.add_part("usb plug", "clearance", [box(face - ol, cy - ow / 2, sz - oh / 2, face,
                                                    cy + ow / 2, sz + oh / 2)], rests_on="pico")
        # the opening: the overmold with clearance, under a roof steep enough to print
        c = r["clearance"]
        half = ow / 2 + c
        z_lo, z_hi = sz - oh / 2 - c, sz + oh / 2 + c
        ridge = z_hi + half * math.tan(math.radians(50))
        outline = [(cy - half, z_lo), (cy + half, z_lo), (cy + half, z_hi), (cy, ridge),
                   (cy - half, z_hi)]
        self.tray.append(("cut", {"prism": {"x": [-1, wall + 1], "yz": outline}}))
        self.openings.append(dict(name="usb", kind="usb", part="tray", centre=[0.0, cy, (z_lo + z_hi) / 2],
                                  size=[2 * half, z_hi - z_lo], roof=ridge, fits="micro-USB plug "
                                  "overmold %.1f x %.1f mm" % (ow, oh)))

    # --- output ------------------------------------------------------------------------------

    def printed(self):
        """{name: (ops, z of its bed face, orientation words)} of the printed parts."""
        return {"tray": (self.tray, 0.0, "as placed: floor on the bed, open side up"),
                "lid": (self.lid, self.lid_bottom, "top face up: its underside on the bed")}

    def assembly(self):
        """The assembly as JSON-ready data (assembly.json)."""
        def rnd(v):
            if isinstance(v, float):
                return round(v, 2) + 0.0
            if isinstance(v, (list, tuple)):
                return [rnd(x) for x in v]
            if isinstance(v, dict):
                return {k: rnd(x) for k, x in v.items()}
            return v
        parts = []
        for name, (ops, bed_z, how) in self.printed().items():
            lo, hi = bbox([s for op, s in ops if op == "add"])
            parts.append(dict(name=name, kind="printed", placement=dict(origin=[0.0, 0.0, 0.0]),
                              bbox=[lo, hi], print=dict(orientation=how, lift=-bed_z,
                                                        size=[hi[0] - lo[0], hi[1] - lo[1],
                                                              hi[2] - lo[2]])))
        for p in self.parts:
            lo, hi = bbox(p["shapes"])
            extra = {k: v for k, v in p.items() if k not in ("name", "kind", "shapes")}
            parts.append(dict(name=p["name"], kind=p["kind"], placement=dict(origin=lo), bbox=[lo, hi],
                              **extra))
        return rnd({
            "generated_by": "matchbox enclosure",
            "from": ["the pin map", PARTS_SOURCE],
            "units": "mm",
            "frame": "origin at the tray's outer bottom front-left corner; x to the right, "
                     "y to the back (away from the maker), z up; bounding boxes of the parts "
                     "at their largest (grown by their tolerance)",
            "box": dict(size=[self.width, self.depth, self.height], wall=self.r["wall"],
                        floor=self.r["floor"], lid=self.r["lid"], inner_height=self.inner,
                        lid_bottom=self.lid_bottom, lid_top=self.lid_top),
            "rules": {k: list(v) if isinstance(v, tuple) else v for k, v in self.r.items()},
            "parts": parts,
            "displays": self.displays,
            "actuators": self.actuators,
            "openings": self.openings,
            "labels": self.labels,
        })

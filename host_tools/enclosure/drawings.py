"""The build guide's drawings of the enclosure, as SVG (host_tools.svg): the same model makes
the same bytes, so the copies in hardware/ are checked for staleness like the wiring diagram.

- `top(layout)`: the lid from above with everything on it named (windows with their display,
  the buttons' names, the keypad's faces, the slot, the sound holes, the screws) and, dashed,
  what lies under it (the Pico and its USB side, the perfboard, the displays' boards).
- `section(model)`: the assembly cut front to back through the keypad, the Pico and the
  displays (trimesh's section of the built meshes), each solid filled.
- `exploded(model)`: the tray, the parts and the lid apart, drawn in an axonometric view from
  OpenCASCADE's hidden-line removal (build123d's project_to_viewport), each group named.
"""
import math

from host_tools import svg as writer

SCALE = 4.0            # SVG units (px) per millimetre in the top view and the section
INK = "#222"
GREY = "#888"
COLORS = {"printed": "#d9d4c7", "pico": "#3c8d40", "display": "#c23b22", "keypad": "#2f5fa8",
          "button": "#7a3fb0", "perfboard": "#a08a4a", "piezo": "#555555", "clearance": "#e0a000"}


def _page(width, height, title, pad=30):
    """A white SVG page of width x height with its title at the top left."""
    width, height = round(width), round(height)
    root = writer.document(width, height, "0 0 %d %d" % (width, height),
                           font_family="Helvetica, Arial, sans-serif")
    writer.add(root, "rect", width="100%", height="100%", fill="#ffffff")
    writer.add(root, "text", title, x=pad, y=24, font_size=14, font_weight="bold", fill=INK)
    return root


def top(layout):
    """The plan view (see the module docstring) as SVG text."""
    pad = 30
    W, D = layout.width, layout.depth
    width, height = W * SCALE + 2 * pad, D * SCALE + 2 * pad + 70

    def px(x):
        return pad + x * SCALE

    def py(y):
        return pad + 40 + (D - y) * SCALE

    root = _page(width, height, "Matchbox enclosure: the lid from above, %.1f x %.1f x %.1f mm"
                 % (W, D, layout.height))
    writer.add(root, "rect", x=px(0), y=py(D), width=W * SCALE, height=D * SCALE, rx=4,
               fill="#f4f1ea", stroke=INK, stroke_width=2)
    keypad = next(p for p in layout.parts if p["name"] == "keypad")
    x0, y0, x1, y1 = keypad["footprint"]
    writer.add(root, "rect", x=px(x0), y=py(y1), width=(x1 - x0) * SCALE, height=(y1 - y0) * SCALE,
               rx=6, fill="#e8eef8", stroke=COLORS["keypad"], stroke_width=1.5)
    for a in layout.actuators:
        if a["part"] != "keypad":
            continue
        x, y, s = a["centre"][0], a["centre"][1], a["size"]
        writer.add(root, "rect", x=px(x - s / 2), y=py(y + s / 2), width=s * SCALE, height=s * SCALE,
                   rx=4, fill="#ffffff", stroke=COLORS["keypad"], stroke_width=1)
        writer.add(root, "text", a["name"][-1], x=px(x), y=py(y) + 6, font_size=16,
                   font_weight="bold", text_anchor="middle", fill=COLORS["keypad"])
    # under the lid, dashed
    for p in layout.parts:
        if p["kind"] not in ("pico", "perfboard", "display", "piezo"):
            continue
        (x0, y0, _), (x1, y1, _) = _bbox2(p)
        writer.add(root, "rect", x=px(x0), y=py(y1), width=(x1 - x0) * SCALE,
                   height=(y1 - y0) * SCALE, fill="none", stroke=COLORS[p["kind"]],
                   stroke_width=1.2, stroke_dasharray="5,3")
        if p["kind"] == "pico":
            writer.add(root, "text", "Pico (USB: left wall)", x=px(x0) + 3, y=py(y1) - 4,
                       font_size=10, fill=COLORS["pico"])
        if p["kind"] == "perfboard":
            writer.add(root, "text", "perfboard %g x %g mm" % tuple(p["cut_to"]), x=px(x0),
                       y=py(y1) - 4, font_size=10, fill=COLORS["perfboard"])
    # openings in the lid
    for o in layout.openings:
        x, y = o["centre"][:2]
        w, h = o["size"]
        if o["kind"] == "window":
            tw, th = o["top_size"]
            writer.add(root, "rect", x=px(x - tw / 2), y=py(y + th / 2), width=tw * SCALE,
                       height=th * SCALE, fill="#ffffff", stroke=INK, stroke_width=1)
            writer.add(root, "rect", x=px(x - w / 2), y=py(y + h / 2), width=w * SCALE,
                       height=h * SCALE, fill="#2a1a18", stroke=INK, stroke_width=1)
        elif o["kind"] in ("button", "screw"):
            writer.add(root, "circle", cx=px(x), cy=py(y), r=w / 2 * SCALE, fill="#ffffff",
                       stroke=INK, stroke_width=1.2)
        elif o["kind"] == "slot":
            writer.add(root, "rect", x=px(x - w / 2), y=py(y + h / 2), width=w * SCALE,
                       height=h * SCALE, fill="#ffffff", stroke=INK, stroke_width=1.2)
            writer.add(root, "text", "keypad tail", x=px(x + w / 2) + 6, y=py(y) + 4, font_size=10,
                       fill=INK)
    for lab in layout.labels:
        writer.add(root, "text", lab["text"], x=px(lab["centre"][0]),
                   y=py(lab["centre"][1]) + lab["height"] * SCALE * 0.36, font_size=lab["height"] * SCALE,
                   font_weight="bold", text_anchor="middle", fill="#6b5a3a")
    for d in layout.displays:
        x, y = d["digit_area"]["centre"][:2]
        writer.add(root, "text", "display %d  0x%02X" % (d["index"] + 1, d["address"]), x=px(x),
                   y=py(y) + 5, font_size=14, font_weight="bold", text_anchor="middle",
                   fill="#ff6a4d")
        role = d["role"].partition(":")[0]
        writer.add(root, "text", role, x=px(x), y=py(y) + 22, font_size=11, text_anchor="middle",
                   fill="#ffb3a3")
    if layout.buzzer:
        s = next(o for o in layout.openings if o["kind"] == "sound")
        writer.add(root, "text", "piezo", x=px(s["centre"][0]), y=py(s["centre"][1]) + 32,
                   font_size=10, text_anchor="middle", fill=INK)
        for op, shape in layout.lid:
            if op == "cut" and "cyl" in shape and shape["cyl"][4] < 3:
                cx, cy, _, _, dia = shape["cyl"]
                writer.add(root, "circle", cx=px(cx), cy=py(cy), r=dia / 2 * SCALE, fill="#ffffff",
                           stroke=INK, stroke_width=1)
    notes = ["Solid: on or through the lid. Dashed: under it. Front (your side) at the bottom.",
             "Engraved: the button names. Stickers (matchbox labels): E and F on the keypad, the "
             "words under the buttons, the displays' names."]
    for i, line in enumerate(notes):
        writer.add(root, "text", line, x=pad, y=py(0) + 24 + 16 * i, font_size=11, fill=GREY)
    return writer.to_text(root)


def _bbox2(part):
    from host_tools.enclosure.layout import bbox
    return bbox(part["shapes"])


def section(model):
    """The front-to-back section through the keypad's middle, as SVG text."""
    import numpy as np
    layout = model.layout
    keypad = next(p for p in layout.parts if p["name"] == "keypad")
    x_cut = (keypad["footprint"][0] + keypad["footprint"][2]) / 2 + 0.01
    pad = 30
    D, H = layout.depth, layout.height + 4
    width, height = D * SCALE + 2 * pad + 150, H * SCALE + 2 * pad + 60

    def py(y):
        return pad + y * SCALE

    def pz(z):
        return pad + 40 + (H - z) * SCALE

    root = _page(width, height, "Section front to back at x = %.1f mm (through the keypad, the "
                 "Pico and the displays)" % x_cut)
    kinds = model.kinds()
    named = []
    import trimesh
    for name in model.shapes():
        shape = model.printed[name] if name in model.printed else model.physical(name)
        vertices, triangles = shape.tessellate(0.05, 0.3)
        mesh = trimesh.Trimesh([(v.X, v.Y, v.Z) for v in vertices], triangles, process=True)
        cut = mesh.section(plane_origin=[x_cut, 0, 0], plane_normal=[1, 0, 0])
        if cut is None:
            continue
        d = []
        for loop in cut.discrete:
            pts = np.asarray(loop)
            d.append("M" + " L".join("%s,%s" % (writer.number(round(py(p[1]), 1)),
                                                writer.number(round(pz(p[2]), 1))) for p in pts) + " Z")
        kind = kinds[name]
        writer.add(root, "path", d=" ".join(d), fill=COLORS.get(kind, "#999"),
                   fill_opacity=0.9 if kind != "clearance" else 0.35, stroke=INK,
                   stroke_width=0.6, fill_rule="evenodd")
        lo = cut.bounds[0]
        hi = cut.bounds[1]
        named.append((name, (lo[1] + hi[1]) / 2, hi[2]))
    for p in layout.parts:
        for shape in p["shapes"]:
            if shape.get("keepout") and shape["box"][0] <= x_cut <= shape["box"][3]:
                _, y0, z0, _, y1, z1 = shape["box"]
                writer.add(root, "rect", x=py(y0), y=pz(z1), width=(y1 - y0) * SCALE,
                           height=(z1 - z0) * SCALE, fill="none", stroke=COLORS[p["kind"]],
                           stroke_width=0.8, stroke_dasharray="4,3")
    writer.add(root, "text", "dashed: room kept for wires, legs and solder", x=py(0),
               y=pz(0) + 34, font_size=11, fill=GREY)
    # names at the right, with a leader to each part
    for i, (name, y, z) in enumerate(sorted(named, key=lambda t: (-t[2], t[1]))):
        ty = pad + 50 + i * 14
        writer.add(root, "text", name, x=py(D) + 40, y=ty + 4, font_size=11, fill=INK)
        writer.add(root, "line", x1=py(D) + 36, y1=ty, x2=py(y), y2=pz(z), stroke=GREY,
                   stroke_width=0.5)
    writer.add(root, "text", "front", x=py(0), y=pz(0) + 18, font_size=11, fill=GREY)
    writer.add(root, "text", "back", x=py(D), y=pz(0) + 18, font_size=11, text_anchor="end",
               fill=GREY)
    return writer.to_text(root)


def exploded(model):
    """The tray, the parts and the lid apart, in an axonometric view, as SVG text."""
    import build123d as bd
    layout = model.layout
    rise = {"tray": 0.0, "lid": 120.0, "keypad": 150.0}
    pieces = []
    for name, kind in model.kinds().items():
        if kind == "clearance":
            continue
        shape = model.printed[name] if name in model.printed else model.physical(name)
        dz = rise.get(name, 50.0)
        pieces.append((name, kind, bd.Pos(0, 0, dz) * shape, dz))
    view = (-0.7, -2.0, 1.3)
    centre = (layout.width / 2, layout.depth / 2, 50.0)
    origin = tuple(c + 400 * v for c, v in zip(centre, view))
    outline = {}
    for name, kind, shape, dz in pieces:
        visible, _ = shape.project_to_viewport(origin, (0, 0, 1), centre)
        lines = []
        for edge in visible:
            n = 2 if edge.geom_type == bd.GeomType.LINE else 12
            pts = [edge.position_at(i / (n - 1)) for i in range(n)]
            lines.append([(p.X, p.Y) for p in pts])
        outline[name] = (kind, lines, dz)
    xs = [x for _, lines, _ in outline.values() for line in lines for x, _ in line]
    ys = [y for _, lines, _ in outline.values() for line in lines for _, y in line]
    k, pad = 2.6, 30
    x0, y1 = min(xs), max(ys)
    width = round((max(xs) - x0) * k + 2 * pad + 170)
    height = round((y1 - min(ys)) * k + 2 * pad + 40)
    root = _page(width, height, "Exploded view: the tray, what goes in it, the lid and the "
                 "keypad on top")

    def at(x, y):
        return pad + (x - x0) * k, pad + 40 + (y1 - y) * k

    for name, (kind, lines, dz) in outline.items():
        d = " ".join("M" + " L".join("%s,%s" % tuple(writer.number(round(v, 1)) for v in at(*p))
                                     for p in line) for line in lines)
        writer.add(root, "path", d=d, fill="none",
                   stroke="#7d7466" if kind == "printed" else COLORS.get(kind, INK),
                   stroke_width=0.8 if kind == "printed" else 1.0)
    groups = [("lid (printed top up)", "lid"), ("keypad: stuck on the lid", "keypad"),
              ("tray (printed floor down)", "tray")]
    for text, name in groups:
        _, lines, _ = outline[name]
        top = max((p for line in lines for p in line), key=lambda p: p[0])
        tx, ty = at(*top)
        writer.add(root, "text", text, x=tx + 10, y=ty + 4, font_size=12, font_weight="bold",
                   fill=INK)
    parts = [n for n in outline if outline[n][0] not in ("printed",) and n != "keypad"]
    right = max(at(x, y)[0] for n in parts for line in outline[n][1] for x, y in line)
    mid = sum(at(x, y)[1] for n in parts for line in outline[n][1] for x, y in line[:1]) / max(
        1, sum(1 for n in parts for line in outline[n][1]))
    writer.add(root, "text", "into the tray: the Pico, the displays,", x=right + 10, y=mid,
               font_size=12, font_weight="bold", fill=INK)
    writer.add(root, "text", "the buttons on their perfboard%s" % (", the piezo" if layout.buzzer else ""),
               x=right + 10, y=mid + 15, font_size=12, font_weight="bold", fill=INK)
    return writer.to_text(root)

"""The layout as solids (build123d on OpenCASCADE): the tray, the lid and every part, and the
files a maker prints or opens in CAD: a STEP of the named assembly and an STL of each printed
part in its print orientation.

build123d (an optional extra: `pip install 'matchbox[enclosure]'`) is imported here and in
the modules that use this one, never elsewhere. The engraved labels are set in matplotlib's
DejaVu Sans Bold (a file that comes with the package's dependencies), so the same text makes
the same solid on every machine.
"""
import io
import os

import build123d as bd

STL_TOLERANCE = (0.02, 0.2)     # chordal deviation (mm), angle (rad) of the STL's triangles
STEP_TIMESTAMP = "2000-01-01T00:00:00"   # fixed: the same model makes the same file


def font_file():
    import matplotlib
    return os.path.join(matplotlib.get_data_path(), "fonts", "ttf", "DejaVuSans-Bold.ttf")


def primitive(s):
    """One primitive of the layout (host_tools.enclosure.layout) as a build123d solid."""
    if "box" in s:
        x0, y0, z0, x1, y1, z1 = s["box"]
        return bd.Pos((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2) * bd.Box(x1 - x0, y1 - y0, z1 - z0)
    if "shell" in s:
        x0, y0, z0, x1, y1, z1, wall, floor = s["shell"]
        outer = primitive({"box": [x0, y0, z0, x1, y1, z1]})
        inner = primitive({"box": [x0 + wall, y0 + wall, z0 + floor, x1 - wall, y1 - wall, z1 + 1]})
        return outer - inner
    if "cyl" in s:
        cx, cy, z0, z1, d = s["cyl"]
        return bd.Pos(cx, cy, z0) * bd.Cylinder(d / 2, z1 - z0, align=(bd.Align.CENTER,
                                                                        bd.Align.CENTER,
                                                                        bd.Align.MIN))
    if "taper" in s:
        cx, cy, z0, z1, w, h, grow = s["taper"]
        low = bd.Pos(cx, cy, z0) * bd.Rectangle(w, h)
        high = bd.Pos(cx, cy, z1) * bd.Rectangle(w + 2 * grow, h + 2 * grow)
        return bd.loft([low, high])
    if "prism" in s:
        x0, x1 = s["prism"]["x"]
        face = bd.Plane.YZ.offset(x0) * bd.Polygon(*s["prism"]["yz"], align=None)
        return bd.extrude(face, x1 - x0)
    if "text" in s:
        text, x, y, height, z0, z1 = s["text"]
        glyphs = bd.Text(text, height, font_path=font_file(),
                         align=(bd.Align.CENTER, bd.Align.CENTER))
        return bd.Pos(x, y, z0) * bd.extrude(glyphs, z1 - z0)
    raise ValueError("unknown primitive %r" % s)


def build(ops):
    """The union of the adds less the union of the cuts."""
    adds = [primitive(s) for op, s in ops if op == "add"]
    cuts = [primitive(s) for op, s in ops if op == "cut"]
    solid = adds[0].fuse(*adds[1:]) if len(adds) > 1 else adds[0]
    if cuts:
        solid = solid.cut(*cuts)
    return solid.clean()


class Model:
    """The built assembly of a Layout: printed[name] and parts[name], build123d shapes in the
    case's frame."""

    def __init__(self, layout, only=None):
        """only: build just these printed parts and no parts (a quicker look at one)."""
        self.layout = layout
        self.printed = {name: build(ops) for name, (ops, _, _) in layout.printed().items()
                        if only is None or name in only}
        self.parts = {}
        for p in layout.parts if only is None else ():
            self.parts[p["name"]] = build([("add", s) for s in p["shapes"]])

    def physical(self, name):
        """A part without the room it keeps for wires and legs (for the drawings)."""
        part = next(p for p in self.layout.parts if p["name"] == name)
        return build([("add", s) for s in part["shapes"] if not s.get("keepout")])

    def rebuild(self, name):
        """Build one printed part again (after its layout operations changed)."""
        self.printed[name] = build(self.layout.printed()[name][0])

    def shapes(self):
        """{name: shape} of every printed part and part."""
        return dict(self.printed, **self.parts)

    def kinds(self):
        out = {name: "printed" for name in self.printed}
        out.update({p["name"]: p["kind"] for p in self.layout.parts})
        return out

    def move(self, name, offset):
        """Move a part or printed part by (dx, dy, dz) mm (the checks' sabotage tests)."""
        where = self.printed if name in self.printed else self.parts
        where[name] = bd.Pos(*offset) * where[name]

    def step(self):
        """The assembly as STEP bytes: one named solid per printed part and part (not the
        USB plug the checks fit to the socket)."""
        children = []
        kinds = self.kinds()
        for name, shape in self.shapes().items():
            if kinds[name] == "clearance":
                continue
            shape = shape.moved(bd.Location())
            shape.label = name
            children.append(shape)
        assembly = bd.Compound(children=children, label="matchbox")
        out = io.BytesIO()
        bd.export_step(assembly, out, timestamp=STEP_TIMESTAMP)
        return out.getvalue()

    def mesh(self, name, print_pose=False):
        """(vertices N x 3, triangles M x 3) of a printed part or part, in the case's frame or,
        with print_pose, as it lies on the bed."""
        import numpy as np
        shape = self.shapes()[name]
        if print_pose and name in self.printed:
            bed_z = self.layout.printed()[name][1]
            shape = bd.Pos(0, 0, -bed_z) * shape
        vertices, triangles = shape.tessellate(*STL_TOLERANCE)
        return (np.array([(v.X, v.Y, v.Z) for v in vertices], dtype=float),
                np.array(triangles, dtype=np.int64))

    def stl(self, name):
        """A printed part as binary STL bytes, as it lies on the bed."""
        import trimesh
        vertices, triangles = self.mesh(name, print_pose=True)
        return trimesh.Trimesh(vertices, triangles, process=True).export(file_type="stl")

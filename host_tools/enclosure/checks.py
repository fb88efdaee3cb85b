"""The assembly checked as an engineer would check it, before anything is printed.

Two levels. `assembly_problems(asm)` reads assembly.json alone (plain Python, no CAD): windows
wide enough for the digits at the viewing angle, buttons centred in their holes and standing
proud, room for fingers, the keypad on solid lid, the USB opening around the plug, the case on
the bed. `model_problems(model)` checks the built solids (host_tools.enclosure.solids.Model):

| check | how |
| --- | --- |
| no two parts intersect each other or the case | OpenCASCADE's boolean common of every pair whose boxes meet; every part at its largest (grown by its tolerance), so zero volume proves the stated clearances |
| each display's digits visible | rays from a grid over the digit area (at its lowest) straight up and tilted by the viewing angle towards the four sides; none may hit anything |
| actuators under their openings and reachable | a ray up from each button's cap and keypad key meets nothing; under the keypad, rays down all meet the lid's top at once (it lies flat, over no opening) |
| the USB plug | the overmold of a micro-B plug, mated to the Pico's socket, is a part: it may meet nothing (above), and rays out along its edges leave the case |
| printed parts | each STL read back (trimesh): closed, consistently wound, a volume equal to the solid's; on and inside the bed; no face leaning out more than the overhang limit above the bed; no wall thinner than the limit (a ray from every triangle inward along its normal, engraved labels aside) |

Ray casting and STL reading are trimesh's (with rtree); the rest is this file's arithmetic.
"""
import io
import math

import numpy as np

EPS_VOLUME = 1e-3      # mm^3: less is touching, not intersecting


# --- assembly.json alone ---------------------------------------------------------------------

def _rects_overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _rect(centre, size):
    return [centre[0] - size[0] / 2, centre[1] - size[1] / 2, centre[0] + size[0] / 2,
            centre[1] + size[1] / 2]


def assembly_problems(asm):
    """What is wrong with an assembly, from its numbers alone (lines; empty when sound)."""
    out = []
    rules, case = asm["rules"], asm["box"]
    W, D, H = case["size"]
    for what in ("wall", "floor", "lid"):
        if case[what] < rules["min_wall"]:
            out.append("the %s is %.2f mm thick, under %.1f mm" % (what, case[what], rules["min_wall"]))
    bed = rules["bed"]
    if W > bed[0] or D > bed[1]:
        out.append("the case (%.1f x %.1f mm) does not fit the %g x %g mm bed" % (W, D, bed[0], bed[1]))
    openings = {o["name"]: o for o in asm["openings"]}
    tilt = math.tan(math.radians(rules["view_tilt"]))
    for d in asm["displays"]:
        win = openings["window %d" % (d["index"] + 1)]
        area = d["digit_area"]
        rise = case["lid_bottom"] + rules["window_straight"] - area["centre"][2]
        for k in (0, 1):
            need = area["size"][k] / 2 + rise * tilt
            have = win["size"][k] / 2 - abs(win["centre"][k] - area["centre"][k])
            if have < need - 1e-6:
                out.append("%s: its window is %.2f mm short of the digits seen %g degrees off "
                           "straight" % (d["name"], need - have, rules["view_tilt"]))
                break
    buttons = [a for a in asm["actuators"] if a["part"] != "keypad"]
    for a in buttons:
        hole = openings.get("button " + a["name"])
        if hole is None:
            out.append("button %s: no opening" % a["name"])
            continue
        off = math.dist(hole["centre"], a["centre"])
        if off + a["size"] / 2 > hole["size"][0] / 2 - 0.2:
            out.append("button %s: its cap is not inside its hole (%.2f mm off centre)"
                       % (a["name"], off))
        if a["top"] < case["lid_top"] + 1.0:
            out.append("button %s: its cap stands %.2f mm over the lid, under 1 mm"
                       % (a["name"], a["top"] - case["lid_top"]))
    acts = asm["actuators"]
    for i, a in enumerate(acts):
        for b in acts[i + 1:]:
            if a["part"] != b["part"] and math.dist(a["centre"], b["centre"]) < rules["finger"]:
                out.append("%s and %s are %.1f mm apart: no room for a finger (%g mm)"
                           % (a["name"], b["name"], math.dist(a["centre"], b["centre"]),
                              rules["finger"]))
    keypad = next(p for p in asm["parts"] if p["name"] == "keypad")
    foot = keypad["footprint"]
    if foot[0] < 0 or foot[1] < 0 or foot[2] > W or foot[3] > D:
        out.append("the keypad does not lie on the lid")
    for o in asm["openings"]:
        if o["part"] == "lid" and _rects_overlap(foot, _rect(o["centre"], o.get("top_size", o["size"]))):
            out.append("the keypad lies over the opening %s" % o["name"])
    usb = openings["usb"]
    pico = next(p for p in asm["parts"] if p["name"] == "pico")
    plug = next(p for p in asm["parts"] if p["name"] == "usb plug")
    (_, py0, pz0), (_, py1, pz1) = plug["bbox"]
    oy, oz = usb["centre"][1], usb["centre"][2]
    if not (oy - usb["size"][0] / 2 <= py0 and py1 <= oy + usb["size"][0] / 2
            and oz - usb["size"][1] / 2 <= pz0 and pz1 <= oz + usb["size"][1] / 2):
        out.append("the USB opening does not clear the plug's overmold")
    face = pico["usb"]["face"]
    if abs(face[1] - oy) > 0.5 or abs(face[2] - oz) > 0.5:
        out.append("the USB opening is not centred on the Pico's socket")
    for p in asm["parts"]:
        lo, hi = p["bbox"]
        if p["kind"] in ("printed", "clearance"):
            continue
        if lo[0] < 0 or lo[1] < 0 or hi[0] > W or hi[1] > D or lo[2] < 0:
            out.append("%s sticks out of the case" % p["name"])
    return out


# --- the built model -------------------------------------------------------------------------

def intersections(model, among=None):
    """(a, b, volume) of every pair of solids that share more than EPS_VOLUME (with `among`,
    only the pairs with one of those names)."""
    shapes = model.shapes()
    boxes = {n: s.bounding_box() for n, s in shapes.items()}
    names = list(shapes)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if among is not None and a not in among and b not in among:
                continue
            ba, bb = boxes[a], boxes[b]
            if (ba.min.X >= bb.max.X or bb.min.X >= ba.max.X or ba.min.Y >= bb.max.Y
                    or bb.min.Y >= ba.max.Y or ba.min.Z >= bb.max.Z or bb.min.Z >= ba.max.Z):
                continue
            common = shapes[a].intersect(shapes[b])
            if common is None:
                volume = 0.0
            elif hasattr(common, "volume"):
                volume = common.volume
            else:   # a list of shapes (solids, or faces where the two only touch)
                volume = sum(getattr(c, "volume", 0.0) for c in common)
            if volume > EPS_VOLUME:
                out.append((a, b, volume))
    return out


class Scene:
    """Meshes of the model in the case's frame, for ray casting (trimesh)."""

    def __init__(self, model, leave_out=()):
        import trimesh
        self.meshes = {}
        for name in model.shapes():
            if name in leave_out:
                continue
            vertices, triangles = model.mesh(name)
            self.meshes[name] = trimesh.Trimesh(vertices, triangles, process=True)
        self.names = list(self.meshes)
        self.all = trimesh.util.concatenate([self.meshes[n] for n in self.names])
        # which mesh each triangle of the concatenation came from
        self.owner = np.repeat(np.arange(len(self.names)),
                               [len(self.meshes[n].faces) for n in self.names])

    def hits(self, origins, directions, skip=()):
        """For each ray: the name of the first thing it meets (or None) and the distance."""
        origins = np.asarray(origins, float)
        directions = np.asarray(directions, float)
        locs, ray, tri = self.all.ray.intersects_location(origins, directions, multiple_hits=True)
        first = [None] * len(origins)
        dist = np.full(len(origins), np.inf)
        for loc, r, t in zip(locs, ray, tri):
            name = self.names[self.owner[t]]
            if name in skip:
                continue
            d = float(np.dot(loc - origins[r], directions[r]))
            if 1e-6 < d < dist[r]:
                dist[r] = d
                first[r] = name
        return first, dist


def _directions(tilt_degrees):
    t = math.radians(tilt_degrees)
    s, c = math.sin(t), math.cos(t)
    return {"straight on": (0, 0, 1), "from the front": (0, -s, c), "from the back": (0, s, c),
            "from the left": (-s, 0, c), "from the right": (s, 0, c)}


def visibility_problems(model, scene):
    layout = model.layout
    out = []
    for d in layout.displays:
        (cx, cy, cz), (w, h) = d["digit_area"]["centre"], d["digit_area"]["size"]
        grid = [(cx + w * (i / 8 - 0.5), cy + h * (j / 4 - 0.5), cz + 0.01)
                for i in range(9) for j in range(5)]
        for label, direction in _directions(layout.r["view_tilt"]).items():
            first, _ = scene.hits(grid, [direction] * len(grid), skip=(d["name"],))
            blocked = sorted({f for f in first if f})
            if blocked:
                out.append("%s: %d of %d points of its digits hidden %s (by %s)" % (
                    d["name"], sum(1 for f in first if f), len(grid), label, ", ".join(blocked)))
    return out


def actuator_problems(model, scene):
    layout = model.layout
    out = []
    tops = [(a["centre"][0], a["centre"][1], a["top"] + 0.6) for a in layout.actuators]
    first, _ = scene.hits(tops, [(0, 0, 1)] * len(tops))
    for a, f in zip(layout.actuators, first):
        if f:
            out.append("%s: something (%s) is over it" % (a["name"], f))
    for a in layout.actuators:
        if a["part"] == "keypad":
            continue
        x, y = a["centre"]
        first, _ = scene.hits([(x, y, layout.lid_bottom - 0.5)], [(0, 0, 1)], skip=(a["part"],))
        if first[0]:
            out.append("button %s: not under its opening (the way up meets %s)" % (a["name"], first[0]))
    keypad = next(p for p in layout.parts if p["name"] == "keypad")
    x0, y0, x1, y1 = keypad["footprint"]
    grid = [(x0 + (x1 - x0) * (i + 0.5) / 12, y0 + (y1 - y0) * (j + 0.5) / 12, layout.lid_top + 0.3)
            for i in range(12) for j in range(12)]
    # against the lid alone: the keypad's underside lies in the lid's top face
    lid = scene.meshes["lid"]
    locs, ray, _ = lid.ray.intersects_location(np.array(grid), np.array([(0, 0, -1.0)] * len(grid)),
                                               multiple_hits=False)
    dist = np.full(len(grid), np.inf)
    dist[ray] = np.array(grid)[ray, 2] - locs[:, 2]
    loose = int(np.sum(np.abs(dist - 0.3) > 0.01))
    if loose:
        out.append("the keypad does not lie flat on the lid: %d of %d points over no lid"
                   % (loose, len(grid)))
    return out


def usb_problems(model, scene):
    pico = next(p for p in model.layout.parts if p["name"] == "pico")
    fx, fy, fz = pico["usb"]["face"]
    plug = next(p for p in model.layout.parts if p["name"] == "usb plug")
    (_, y0, z0), (_, y1, z1) = [list(v) for v in _shape_box(plug)]
    rays = [(fx - 0.01, y, z) for y in (y0 + 0.01, (y0 + y1) / 2, y1 - 0.01)
            for z in (z0 + 0.01, (z0 + z1) / 2, z1 - 0.01)]
    first, _ = scene.hits(rays, [(-1, 0, 0)] * len(rays), skip=("usb plug",))
    blocked = sorted({f for f in first if f})
    if blocked:
        return ["the micro-USB plug cannot reach the Pico's socket: its way out meets %s"
                % ", ".join(blocked)]
    return []


def _shape_box(part):
    from host_tools.enclosure.layout import bbox
    return bbox(part["shapes"])


def read_stl(data):
    import trimesh
    return trimesh.load(io.BytesIO(data), file_type="stl", process=True)


def thickness(mesh, exempt=()):
    """(least wall thickness, where) of a mesh: from each triangle's centre a ray inward along
    its normal to the next surface. exempt: boxes [x0, y0, z0, x1, y1, z1] where neither the
    start nor the end of a ray counts (engraved text)."""
    def inside(points):
        keep = np.zeros(len(points), bool)
        for b in exempt:
            keep |= np.all((points >= np.array(b[:3])) & (points <= np.array(b[3:])), axis=1)
        return keep
    counted = ~inside(mesh.triangles_center)
    centres = mesh.triangles_center[counted]
    normals = mesh.face_normals[counted]
    origins = centres - normals * 1e-3
    locs, ray, _ = mesh.ray.intersects_location(origins, -normals, multiple_hits=False)
    dist = np.full(len(origins), np.inf)
    dist[ray] = np.einsum("ij,ij->i", locs - origins[ray], -normals[ray]) + 1e-3
    ends = np.zeros_like(origins)
    ends[ray] = locs
    dist[inside(ends) & np.isfinite(dist)] = np.inf
    if not len(dist) or not np.isfinite(dist).any():
        return math.inf, None
    i = int(np.argmin(dist))
    return float(dist[i]), centres[i].tolist()


def printed_problems(model, stls=None):
    """Each printed part's STL (given, or made) read back and checked for printing."""
    layout = model.layout
    rules = layout.r
    out = []
    for name in model.printed:
        bed_z = layout.printed()[name][1]
        data = stls[name] if stls else model.stl(name)
        mesh = read_stl(data)
        if not (mesh.is_watertight and mesh.is_winding_consistent and mesh.is_volume):
            out.append("%s: its STL is not a closed, manifold solid" % name)
            continue
        solid_volume = model.printed[name].volume
        if abs(mesh.volume - solid_volume) > 0.01 * solid_volume:
            out.append("%s: its STL holds %.0f mm3, the solid %.0f" % (name, mesh.volume, solid_volume))
        lo, hi = mesh.bounds
        bed = rules["bed"]
        if hi[0] - lo[0] > bed[0] or hi[1] - lo[1] > bed[1]:
            out.append("%s: %.1f x %.1f mm does not fit the %g x %g mm bed"
                       % (name, hi[0] - lo[0], hi[1] - lo[1], bed[0], bed[1]))
        if abs(lo[2]) > 1e-3:
            out.append("%s: does not lie on the bed (lowest point at %.2f mm)" % (name, lo[2]))
        # overhangs: faces turned down further than the limit, above the bed
        limit = -math.cos(math.radians(rules["max_overhang"])) - 1e-6
        normals, centres = mesh.face_normals, mesh.triangles_center
        over = (normals[:, 2] < limit) & (centres[:, 2] > 0.05)
        area = float(mesh.area_faces[over].sum())
        if area > 0.5:
            z = float(centres[over, 2].min())
            out.append("%s: %.1f mm2 of overhang steeper than %g degrees (lowest at z %.1f mm): "
                       "it needs supports" % (name, area, rules["max_overhang"], z))
        exempt = [[lab["centre"][0] - len(lab["text"]) * lab["height"] / 2 - 1,
                   lab["centre"][1] - lab["height"], layout.lid_top - lab["depth"] - 0.05 - bed_z,
                   lab["centre"][0] + len(lab["text"]) * lab["height"] / 2 + 1,
                   lab["centre"][1] + lab["height"], layout.lid_top + 1 - bed_z]
                  for lab in layout.labels if lab["part"] == name]
        least, where = thickness(mesh, exempt)
        if least < rules["min_wall"] - 0.01:
            out.append("%s: a wall %.2f mm thick at (%.1f, %.1f, %.1f), under %g mm"
                       % (name, least, where[0], where[1], where[2] + bed_z, rules["min_wall"]))
    return out


def model_problems(model, stls=None):
    """Every check of the built model (lines; empty when it passes)."""
    out = ["%s and %s intersect (%.2f mm3)" % hit for hit in intersections(model)]
    scene = Scene(model)
    out += visibility_problems(model, scene)
    out += actuator_problems(model, scene)
    out += usb_problems(model, scene)
    out += printed_problems(model, stls)
    return out

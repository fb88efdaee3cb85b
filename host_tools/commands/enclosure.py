"""`matchbox enclosure [--pinmap FILE] [-o DIR]`: the printable case of the box, made for its
pin map (1 to 4 displays, its buttons, the piezo or none) and the parts table
(hardware/parts.json), and checked before anything is printed.

Writes into DIR (default `enclosure` here): `enclosure.step` (the assembly, every solid named),
`tray.stl` and `lid.stl` (each as it lies on the bed), `assembly.json` (every part's place and
size, each display's digit area, each key's and button's actuator, the openings, the labels)
and the guide's drawings `enclosure-top.svg`, `enclosure-section.svg`,
`enclosure-exploded.svg`; `--parts FILE` takes a parts table of your own (your parts
measured) instead of hardware/parts.json; `--drawings-only` writes just the drawings (hardware/ keeps a set,
which the tests hold to the shipped pin map). Then it checks the assembly
(host_tools.enclosure.checks) and says what it found: exit 1 when a check fails (the files are
written, to look at), 2 when the pin map, the parts table or the folder does not serve, or
when the CAD extra is not installed (`pipx install --force '.[enclosure]'` in a checkout).
"""
import json
import os

from host_tools import errors, files, resources
from host_tools.errors import MatchboxError

DEFAULT_OUTPUT = "enclosure"
DRAWINGS = ("enclosure-top.svg", "enclosure-section.svg", "enclosure-exploded.svg")
EXTRA = ("install matchbox with it: pipx install --force '.[enclosure]' in the checkout "
         "(in a venv: pip install '.[enclosure]')")


def add_arguments(parser):
    parser.add_argument("--pinmap", metavar="FILE",
                        help="the box's pin map (default: %s)" % resources.PINMAP_SOURCE)
    parser.add_argument("-o", "--output", metavar="DIR", default=DEFAULT_OUTPUT,
                        help="folder to write the files into (default: %s here)" % DEFAULT_OUTPUT)
    parser.add_argument("--parts", metavar="FILE",
                        help="the parts table, your own measurements (default: %s)"
                        % "hardware/parts.json")
    parser.add_argument("--drawings-only", action="store_true",
                        help="write only the three SVG drawings (for hardware/)")


def load_cad():
    """The modules that need the extra, or MatchboxError saying what to install."""
    try:
        from host_tools.enclosure import checks, drawings, solids
        import trimesh  # noqa: F401
        import networkx  # noqa: F401  (trimesh's sections need it)
        import rtree  # noqa: F401  (trimesh's ray casting needs it)
    except ImportError as exc:
        raise MatchboxError("needs the CAD extra (%s is missing): %s"
                            % (getattr(exc, "name", None) or exc, EXTRA)) from None
    return solids, checks, drawings


def plan(pinmap, parts_path=None):
    """The Layout for a pin map (parts table checked first)."""
    from host_tools.enclosure import layout, parts
    shown = parts_path or parts.SOURCE
    try:
        table = json.loads(errors.read_bounded(parts_path or parts.PATH, 1024 * 1024,
                                               "parts table").decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise MatchboxError(shown, "not JSON: %s" % exc) from None
    try:
        wrong = parts.check_table(table)
        the_layout = layout.Layout(pinmap, parts.Parts(table)) if not wrong else None
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise MatchboxError(shown, "not a parts table (%s %s missing or wrong)"
                            % (type(exc).__name__, exc)) from None
    except layout.LayoutError as exc:
        raise MatchboxError("cannot make a case", str(exc)) from None
    if wrong:
        raise MatchboxError(shown, "; ".join(wrong))
    return the_layout


def make(pinmap, out, drawings_only=False, parts_path=None):
    """Build, check and write the enclosure of a pin map into the folder `out`.
    Returns (model, the files written, the problems found)."""
    the_layout = plan(pinmap, parts_path)
    solids, checks, drawings = load_cad()
    errors.check_folder(out, "folder for the enclosure's files")
    model = solids.Model(the_layout)
    written = []

    def put(name, data):
        path = os.path.join(out, name)
        files.write_whole(path, data if isinstance(data, bytes) else data.encode("utf-8"))
        written.append(path)

    put(DRAWINGS[0], drawings.top(the_layout))
    put(DRAWINGS[1], drawings.section(model))
    put(DRAWINGS[2], drawings.exploded(model))
    if drawings_only:
        return model, written, []
    stls = {name: model.stl(name) for name in model.printed}
    problems = checks.assembly_problems(the_layout.assembly()) + checks.model_problems(model, stls)
    put("enclosure.step", model.step())
    for name, data in stls.items():
        put("%s.stl" % name, data)
    assembly = the_layout.assembly()
    assembly["checks"] = dict(passed=not problems, problems=problems, checked=CHECKED)
    put("assembly.json", json.dumps(assembly, indent=1, ensure_ascii=False) + "\n")
    return model, written, problems


CHECKED = ["no two parts (each at its largest) intersect each other or the case",
           "each display's digits in view straight on and 30 degrees off towards each side",
           "each button's cap under its hole and standing over the lid; the keypad flat on solid lid",
           "room for a finger between the buttons",
           "a micro-USB plug's overmold reaches the Pico's socket through the wall",
           "each STL a closed manifold solid on the bed, within 220 x 220 mm, no overhang over "
           "45 degrees, no wall under 2 mm"]


def run(args):
    source = args.pinmap or resources.PINMAP
    from host_tools.enclosure.layout import read_pinmap
    pinmap = read_pinmap(source)
    model, written, problems = make(pinmap, args.output, args.drawings_only, args.parts)
    for path in written:
        files.print_path(path)
    if args.drawings_only:
        return 0
    layout = model.layout
    board = next(p for p in layout.parts if p["name"] == "perfboard")["cut_to"]
    print("case %.1f x %.1f x %.1f mm for %d display%s, %d buttons, %s; perfboard %g x %g mm"
          % (layout.width, layout.depth, layout.height, len(layout.displays),
             "" if len(layout.displays) == 1 else "s", len(pinmap["buttons"]),
             "a piezo" if layout.buzzer else "no piezo", board[0], board[1]))
    if problems:
        for line in problems:
            print("check failed: %s" % line)
        raise MatchboxError("the assembly", "%d check%s failed (the files are written, to look "
                            "at)" % (len(problems), "" if len(problems) == 1 else "s"),
                            errors.VERDICT)
    print("checked: " + "; ".join(CHECKED))
    return 0

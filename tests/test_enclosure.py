"""The printable case (`matchbox enclosure`) checked as an engineer would, and the sticker sheet
(`matchbox labels`).

Every pin-map shape the firmware accepts (1 to 4 displays, with and without the piezo) is laid
out and its assembly.json checked; two of them (the shipped map: four displays and the piezo;
one display and none) are built in CAD and checked whole: collisions, digits in view, actuators
reachable, the USB plug, each STL read back. Each check is shown to fail on its sabotage: a
part moved into another, a window shifted off its digits, a wall made too thin. The models
are built once per run (a module fixture; the tests share one xdist worker)."""
import copy
import json
import os
import re
import subprocess
import sys

import pytest

from host_tools import cli, resources, words
from host_tools.commands import enclosure, labels
from host_tools.enclosure import checks as plain_checks
from host_tools.enclosure import layout, parts

pytestmark = pytest.mark.xdist_group("enclosure")

HARDWARE = resources.HARDWARE
SHAPES = [(n, buzzer) for n in (1, 2, 3, 4) for buzzer in (True, False)]


def pinmap(displays=4, buzzer=True):
    m = resources.load_pinmap()
    m["displays"] = m["displays"][:displays]
    if not buzzer:
        m["buzzer"] = None
    return m


def plan(m):
    return layout.Layout(m, parts.Parts(parts.load()))


@pytest.fixture(scope="module")
def cad():
    pytest.importorskip("build123d", reason="the enclosure's CAD extra: pip install '.[enclosure]'")
    from host_tools.enclosure import checks, solids
    return solids, checks


@pytest.fixture(scope="module")
def shipped(cad, tmp_path_factory):
    """The shipped map's case, made as the command makes it: (model, folder, problems)."""
    out = tmp_path_factory.mktemp("enclosure")
    model, written, problems = enclosure.make(resources.load_pinmap(), str(out))
    return model, out, problems, written


# --- the parts table and the bill of materials -----------------------------------------------

def test_every_figure_of_the_parts_table_has_a_tolerance_and_a_source():
    table = parts.load()
    assert parts.check_table(table) == []
    origins = [fig["from"] for _, _, fig in parts.figures(table)]
    assert "drawing" in origins and "assumption" in origins
    broken = copy.deepcopy(table)
    del broken["parts"]["pico"]["board"]["tol"]
    broken["parts"]["keypad"]["body"]["from"] = "caliper"
    assert parts.check_table(broken) == ["pico.board: tol must be a number of mm, 0 or more",
                                         "keypad.body: from must be one of drawing, assumption"]


def test_the_bill_of_materials_names_every_part_of_the_table():
    with open(os.path.join(HARDWARE, "bom.md"), encoding="utf-8") as f:
        bom = f.read()
    rows = re.findall(r"^\| [^|]+ \| ([^|]+) \|", bom.split("## Display addresses")[0], re.M)
    named = {entry["bom"] for entry in parts.load()["parts"].values()}
    assert named <= set(r.strip() for r in rows), named - set(r.strip() for r in rows)
    # every row but the wires and the case itself is a part of the table
    assert set(r.strip() for r in rows) - named == {"Part", "Hookup wire or jumper wires, female headers",
                                                    "Enclosure"}
    board = next(p for p in plan(pinmap()).parts if p["name"] == "perfboard")["cut_to"]
    assert "%g x %g mm for eight buttons" % tuple(board) in bom


# --- every shape of pin map, from assembly.json alone ----------------------------------------

@pytest.mark.parametrize("displays,buzzer", SHAPES)
def test_every_pinmap_shape_lays_out_and_its_assembly_passes(displays, buzzer):
    m = pinmap(displays, buzzer)
    assert resources.firmware_module("box.pincheck").problems(m) == []
    asm = json.loads(json.dumps(plan(m).assembly()))
    assert plain_checks.assembly_problems(asm) == []
    kinds = [o["kind"] for o in asm["openings"]]
    assert kinds.count("window") == displays and kinds.count("button") == 8
    assert kinds.count("sound") == (1 if buzzer else 0) and kinds.count("usb") == 1
    assert [d["address"] for d in asm["displays"]] == [d["address"] for d in m["displays"]]
    assert len(asm["actuators"]) == 16 + 8 and len(asm["labels"]) == 8
    assert ("piezo" in [p["name"] for p in asm["parts"]]) == buzzer
    for p in asm["parts"]:
        assert set(p) >= {"name", "kind", "placement", "bbox"}
    W, D, H = asm["box"]["size"]
    assert W <= 220 and D <= 220 and asm["box"]["wall"] >= 2 and asm["box"]["lid"] >= 2


def test_the_displays_read_in_the_firmwares_order():
    """Display 1 at the back left, then left to right and front-wards, as text is read."""
    shown = plan(pinmap()).displays
    centres = [d["digit_area"]["centre"] for d in shown]
    assert centres[0][0] < centres[1][0] and centres[2][0] < centres[3][0]
    assert centres[0][1] == centres[1][1] > centres[2][1] == centres[3][1]


def test_the_assembly_checks_fail_on_a_narrow_window_a_sunk_button_and_a_thin_wall():
    asm = plan(pinmap()).assembly()
    bad = copy.deepcopy(asm)
    next(o for o in bad["openings"] if o["name"] == "window 2")["size"][0] -= 4
    next(a for a in bad["actuators"] if a["name"] == "PASS")["top"] -= 1.5
    bad["box"]["wall"] = 1.5
    found = plain_checks.assembly_problems(bad)
    assert found[0] == "the wall is 1.50 mm thick, under 2.0 mm"
    # the window had 0.13 mm to spare at 30 degrees; 2 mm less on each side leaves 1.87 short
    assert re.fullmatch(r"display 2: its window is 1\.8\d mm short of the digits seen 30 "
                        r"degrees off straight", found[1]), found[1]
    assert found[2:] == ["button PASS: its cap stands 0.50 mm over the lid, under 1 mm"]


def test_a_pin_map_the_case_cannot_hold_is_one_line(tmp_path, capsys):
    m = pinmap()
    m["displays"].append({"address": 116, "role": "a fifth"})
    path = tmp_path / "five.json"
    path.write_text(json.dumps(m))
    assert cli.main(["enclosure", "--pinmap", str(path), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "1 to 4 displays expected" in err
    path.write_text("{not json")
    assert cli.main(["enclosure", "--pinmap", str(path)]) == 2
    assert "not JSON" in capsys.readouterr().err
    table = parts.load()
    del table["parts"]["button"]["cap"]["source"]
    (tmp_path / "parts.json").write_text(json.dumps(table))
    assert cli.main(["enclosure", "--parts", str(tmp_path / "parts.json"), "-o",
                     str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == "matchbox enclosure: %s: button.cap: no source\n" % (
        tmp_path / "parts.json")
    table = parts.load()
    del table["parts"]["pico"]
    (tmp_path / "parts.json").write_text(json.dumps(table))
    assert cli.main(["enclosure", "--parts", str(tmp_path / "parts.json")]) == 2
    assert "not a parts table (KeyError 'pico' missing or wrong)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# --- the built model -------------------------------------------------------------------------

def test_the_shipped_map_makes_every_file_and_passes_every_check(shipped, cad):
    model, out, problems, written = shipped
    assert problems == []
    names = sorted(os.listdir(out))
    assert names == sorted(["enclosure.step", "tray.stl", "lid.stl", "assembly.json"]
                           + list(enclosure.DRAWINGS))
    with open(out / "enclosure.step", encoding="ascii", errors="replace") as f:
        step = f.read()
    for name in ["tray", "lid", "pico", "keypad", "piezo", "perfboard"] + \
            ["display %d" % i for i in range(1, 5)] + ["button AS", "button H"]:
        assert "PRODUCT('%s'" % name in step, name
    with open(out / "assembly.json", encoding="utf-8") as f:
        asm = json.load(f)
    assert asm["checks"]["passed"] is True and asm["checks"]["problems"] == []
    del asm["checks"]
    assert asm == json.loads(json.dumps(model.layout.assembly()))
    _, checks = cad
    for name in ("tray", "lid"):
        mesh = checks.read_stl((out / ("%s.stl" % name)).read_bytes())
        assert mesh.is_watertight and mesh.is_volume
        assert mesh.bounds[0][2] == pytest.approx(0, abs=1e-6)


def test_one_display_and_no_piezo_through_the_command(cad, tmp_path, capsys):
    path = tmp_path / "small.json"
    path.write_text(json.dumps(pinmap(1, False)))
    assert cli.main(["enclosure", "--pinmap", str(path), "-o", str(tmp_path / "out")]) == 0
    said = capsys.readouterr().out
    assert "for 1 display, 8 buttons, no piezo" in said and "checked: " in said
    with open(tmp_path / "out" / "assembly.json", encoding="utf-8") as f:
        asm = json.load(f)
    assert asm["checks"]["passed"] and len(asm["displays"]) == 1
    assert "piezo" not in [p["name"] for p in asm["parts"]]
    assert (tmp_path / "out" / "tray.stl").stat().st_size > 10000


def test_a_part_moved_into_another_fails(shipped, cad):
    model = copy.copy(shipped[0])
    model.parts = dict(model.parts)
    _, checks = cad
    model.move("pico", (0, 0, -1.5))            # into its standoffs
    model.move("display 2", (-20, 0, 0))        # into display 1
    hits = {(a, b) for a, b, _ in checks.intersections(model, among=("pico", "display 2"))}
    assert ("tray", "pico") in hits
    assert ("display 1", "display 2") in hits or ("display 2", "display 1") in hits
    assert checks.intersections(shipped[0], among=("pico", "display 2")) == []


def test_a_window_shifted_off_its_digits_fails(shipped, cad):
    solids, checks = cad
    model = copy.copy(shipped[0])
    model.printed = dict(model.printed)
    model.layout = copy.deepcopy(model.layout)
    for op, shape in model.layout.lid:
        # window 1's straight part and its chamfer, 5 mm to the right
        if "taper" in shape and shape["taper"][:2] == model.layout.displays[0]["digit_area"]["centre"][:2]:
            shape["taper"][0] += 5
        elif "box" in shape and shape["box"][3] - shape["box"][0] > 40 and \
                shape["box"][0] < model.layout.displays[0]["digit_area"]["centre"][0] < shape["box"][3] and \
                shape["box"][1] < model.layout.displays[0]["digit_area"]["centre"][1] < shape["box"][4]:
            shape["box"][0] += 5
            shape["box"][3] += 5
    model.rebuild("lid")
    problems = checks.visibility_problems(model, checks.Scene(model))
    assert problems and all(p.startswith("display 1:") for p in problems)
    assert "hidden straight on (by lid)" in problems[0]


def test_a_wall_made_too_thin_fails(cad):
    solids, checks = cad
    thin = layout.Layout(pinmap(1, False), parts.Parts(parts.load()), {"wall": 1.2})
    problems = checks.printed_problems(solids.Model(thin, only=("tray",)))
    assert len(problems) == 1 and re.match(r"tray: a wall 1\.20 mm thick at .*, under 2 mm$",
                                           problems[0]), problems


def test_the_drawings_in_hardware_are_current(shipped):
    """hardware/enclosure-*.svg are the shipped map's: remake them with
    `matchbox enclosure --drawings-only -o hardware` after changing the map or the table."""
    _, out, _, _ = shipped
    for name in enclosure.DRAWINGS:
        with open(os.path.join(HARDWARE, name), encoding="utf-8") as f:
            committed = f.read()
        assert (out / name).read_text(encoding="utf-8") == committed, \
            "hardware/%s is out of date: run `matchbox enclosure --drawings-only -o hardware`" % name
    from host_tools.enclosure import drawings
    assert drawings.top(plan(pinmap(1, False))) != (out / enclosure.DRAWINGS[0]).read_text()


def test_without_the_extra_the_command_says_what_to_install_and_the_rest_works(tmp_path):
    code = ("import sys; sys.modules['build123d'] = None\n"
            "from host_tools import cli\n"
            "cli.build_parser()\n"
            "assert 'trimesh' not in sys.modules\n"
            "sys.exit(cli.main(['enclosure', '-o', %r]))" % str(tmp_path / "out"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "Fontconfig" not in line]
    assert lines == ["matchbox enclosure: needs the CAD extra (build123d is missing): %s"
                     % enclosure.EXTRA]
    assert "pipx install --force '.[enclosure]'" in enclosure.EXTRA
    helped = subprocess.run([sys.executable, "-m", "host_tools.cli", "--help"], capture_output=True,
                            text=True, timeout=120)
    assert helped.returncode == 0 and "enclosure" in helped.stdout and "labels" in helped.stdout


# --- the sticker sheet -----------------------------------------------------------------------

def test_every_button_of_the_map_has_its_words_in_every_language():
    m = resources.load_pinmap()
    for lang in words.LANGUAGES:
        c = labels.content(m, lang)
        assert [name for name, _ in c["buttons"]] == [b["name"] for b in m["buttons"]]
        assert all(word.strip() for _, word in c["buttons"])
        assert [n for n, _ in c["displays"]] == ["1", "2", "3", "4"]
    assert labels.content(pinmap(1, False), "de")["displays"] == [("1", "Tisch")]


@pytest.mark.parametrize("lang", words.LANGUAGES)
def test_the_sticker_sheet_embeds_every_character_it_sets(lang, tmp_path, capsys):
    from test_card import embedded_cmaps
    out = tmp_path / ("labels-%s.pdf" % lang)
    assert cli.main(["labels", "--lang", lang, "-o", str(out)]) == 0
    assert capsys.readouterr().out == "%s\n" % out
    pdf = out.read_bytes()
    covered = embedded_cmaps(pdf)
    text = "".join(labels.texts(labels.content(resources.load_pinmap(), lang)))
    assert not [ch for ch in text if ch.strip() and ord(ch) not in covered]
    assert pdf == labels.draw(resources.load_pinmap(), lang)     # the same sheet every time

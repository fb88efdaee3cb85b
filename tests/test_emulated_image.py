"""The box's own firmware image on an emulated RP2040 (rp2040js), as a maker meets it: a new
image dragged onto a box mid-game, `matchbox flash` and `doctor` on a board with a ROMFS
partition, a ROMFS deploy cut by the power, and `matchbox sim --pico --uf2`.
Figures are emulated time (an estimate of a Pico, not a measurement of one)."""
import json
import math
import os
import shutil
import subprocess
import sys
import time

import pytest

from host_tools.virtual import emulated_pico as ep

REASON = ep.missing()
if REASON:
    pytest.skip("emulated Pico: " + REASON, allow_module_level=True)

from box.journal import Journal  # noqa: E402
from tycoon import notation  # noqa: E402
from host_tools.resources import CHECKOUT as ROOT, FIRMWARE  # noqa: E402
from host_tools.device import image  # noqa: E402
from host_tools.virtual.box import setup_keys  # noqa: E402
from test_emulated_pico import STOCK, game_keys, journal_state, needs_stock  # noqa: E402

SETUP = (3, 1, "none", 5, 6, [4, 3, 4])
CODE_SHOWN = ["C0dE", "Err "]   # main.py shows COdE (O and 0 look alike) when the box's code is missing
# Cut points of a ROMFS deploy tried in `make test` (every one: make romfs-cuts-pico).
ALL_CUTS = os.environ.get("MATCHBOX_ROMFS_CUTS") == "all"


def matchbox(*argv, timeout=300):
    return subprocess.run([sys.executable, "-m", "host_tools.cli"] + [str(a) for a in argv],
                          capture_output=True, text=True, cwd=ROOT, timeout=timeout)


@pytest.fixture(scope="module")
def old_image(tmp_path_factory):
    """An image of the box's code as it was one version ago (another VERSION): a box in the
    field, to update."""
    root = tmp_path_factory.mktemp("old") / "firmware"
    shutil.copytree(FIRMWARE, root, ignore=shutil.ignore_patterns("board", "__pycache__"))
    version = root / "lib" / "box" / "version.py"
    version.write_text(version.read_text().replace('VERSION = "', 'VERSION = "0.0.1-old+'))
    data, facts = image.make_uf2(root=str(root))
    path = root.parent / "old.uf2"
    path.write_bytes(data)
    return str(path), facts


def game_files(tmp_path):
    """A box's games/ as its journal writes them: one archived game, the setup remembered, a
    game in progress."""
    folder = tmp_path / "box"
    folder.mkdir()
    journal = Journal(str(folder / "games"))
    _keys, first = game_keys(SETUP, 5)
    journal.start(first)
    journal.archive(first)
    _keys, second = game_keys(SETUP, 6, actions=12)
    journal.start(second)
    journal.save_setup(3, 1, "none", 5, 6, [4, 3, 4])
    files = {}
    for dirpath, _dirs, names in os.walk(folder):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, folder).replace(os.sep, "/")] = f.read()
    return files, second


def board_says(pico, expression):
    """Ctrl-C, then `expression` evaluated at the board's REPL (as text)."""
    assert pico.interrupt() == "repl"
    mark = len(pico.console)
    pico.write_serial(("print('@@', %s)\r" % expression).encode())
    pico.run_until(lambda: any(line.startswith("@@ ") for line in pico.console[mark:]), 3000)
    return next(line[3:] for line in pico.console[mark:] if line.startswith("@@ "))


def romfs_on_flash(pico, board="pico"):
    info = image.base_info(image.base_files(board)[1])
    head = pico.flash_bytes(info["romfs_address"] - image.XIP_BASE, 16)
    size = image.romfs_size(head)
    return None if size is None else pico.flash_bytes(info["romfs_address"] - image.XIP_BASE, size)


def test_a_new_image_dragged_onto_a_box_mid_game_keeps_every_game(old_image, tmp_path):
    files, game = game_files(tmp_path)
    new = ep.own_image()
    with ep.EmulatedPico(uf2=old_image[0], files=files) as pico:
        assert pico.boot() == "running"
        pico.advance(300)
        shown = pico.displays()
        assert shown[0].strip() and journal_state(pico)[1] is not None
        assert board_says(pico, "__import__('box.version').version.VERSION").startswith("0.0.1-old")
        kept = pico.read_files()
        pico.drag(new)
        assert pico.boot() == "running"
        pico.advance(300)
        assert pico.displays() == shown          # the game resumes where it was
        assert pico.read_files() == kept         # archive, setup and journal untouched
        with open(new, "rb") as f:
            assert romfs_on_flash(pico) == image.romfs_in_uf2(f.read())
        from box.version import VERSION
        assert board_says(pico, "__import__('box.version').version.VERSION") == VERSION
        assert board_says(pico, "__import__('box.app').app.__file__") == "/rom/lib/box/app.mpy"


def test_the_pico_w_image_runs_the_box_without_its_radio(tmp_path):
    """The Pico W's image (rp2040js has no CYW43 radio): a game in progress on the Pico W's
    littlefs (212 blocks at 0x12C000) resumes as on the Pico, the code runs from its ROMFS at
    0x1010C000, a move is recorded; starting the radio fails at once, without hanging."""
    files, game = game_files(tmp_path)
    with ep.EmulatedPico(files=files) as pico:
        assert pico.boot() == "running"
        pico.advance(300)
        on_pico = pico.displays()
    with ep.EmulatedPico(files=files, board="picow") as picow:
        assert picow.uf2 == ep.own_image("picow")
        assert picow.boot() == "running"
        picow.advance(300)
        assert picow.displays() == on_pico and on_pico[0].strip()
        assert journal_state(picow)[1] == notation.write(game)
        with open(picow.uf2, "rb") as f:
            carried = image.romfs_in_uf2(f.read(), image.base_info(image.base_files("picow")[1]))
        assert carried and romfs_on_flash(picow, "picow") == carried
        before = picow.journal_text()
        picow.keys("PASS")
        picow.advance(300)
        assert picow.journal_text().startswith(before) and len(picow.journal_text()) > len(before)
        # the littlefs writes stay in the Pico W's littlefs
        assert picow.flash_log and all(0x12C000 <= off < 0x200000 for _k, off, _n in picow.flash_log)
        assert board_says(picow, "__import__('sys').implementation._build") == "MATCHBOX_PICO_W"
        assert board_says(picow, "__import__('box.app').app.__file__") == "/rom/lib/box/app.mpy"
        assert board_says(picow, "__import__('os').statvfs('/')[2]") == "212"
        mark = len(picow.serial)
        picow.write_serial(b"import network; w = network.WLAN(network.STA_IF); w.active(True)\r")
        picow.run_until(lambda: b"Failed to start CYW43" in picow.serial[mark:], 5000)
        assert b"[CYW43] Failed to start CYW43" in picow.serial[mark:]
        assert board_says(picow, "1 + 1") == "2"   # the REPL answers after it


def test_the_pico_w_starts_its_radio_once_before_its_game_is_shown(tmp_path):
    """The Pico W's image with the hall's settings on its flash (hall.json, a broker at a
    TEST-NET address): the radio starts at power-up, before the first frame (its start holds
    the box; rp2040js has no CYW43, so it fails, after 0.6-1.1 s emulated), and never again:
    the joins the link starts later fail at once, and the keys go on being recorded."""
    from host_tools.hall import uplink
    files, _game = game_files(tmp_path)
    data = uplink.settings("mqtt://t1:pw@192.0.2.1:1883", "Room", "secret99")
    files["hall.json"] = json.dumps(data).encode()
    with ep.EmulatedPico(files=files, board="picow") as picow:
        assert picow.boot() == "running"    # the displays set up and lit, blank
        # in short steps: rp2040js stalls in the radio's start when run on in one long step
        assert picow.run_until(lambda: picow.framed_at is not None, 3000)
        failed = [ln for ln in picow.console if "Failed to start CYW43" in ln]
        assert len(failed) == 1 and picow.framed_at >= 500   # the game shown after the start
        before = picow.journal_text()
        picow.advance(15000)      # the loop quiet 3 s: a join, failed at once; 5 s on, another
        picow.keys("PASS")
        picow.advance(300)
        picow.keys("UNDO")
        picow.advance(300)
        picow.keys("PASS")
        picow.advance(300)
        assert sum(1 for ln in picow.console if "Failed to start CYW43" in ln) == 1
        after = picow.journal_text()
        assert after.startswith(before) and after.count("\n") == before.count("\n") + 3


def test_files_named_like_built_ins_on_the_flash_do_not_stand_in_for_them(tmp_path):
    """box.powerup files the built-ins the box imports under their plain names from their
    u-names: MicroPython looks along sys.path, the littlefs first, for `json.py` before it takes
    the built-in (about 2.2 ms a module at every boot). Such files on the littlefs are not
    imported: the box resumes its game."""
    files, game = game_files(tmp_path)
    for name in ("json", "struct", "binascii", "array", "time", "machine", "os", "select"):
        files[name + ".py"] = b"raise ImportError('the stray %s.py')\n" % name.encode()
    with ep.EmulatedPico(files=files) as pico:
        assert pico.boot() == "running"
        pico.advance(300)
        assert pico.displays()[0].strip() and b"stray" not in pico.serial
        assert journal_state(pico)[1] == notation.write(game)


@needs_stock
def test_the_image_dragged_onto_a_stock_box_resumes_its_game(tmp_path):
    """A box flashed the stock way (.mpy on littlefs) gets the image: its game resumes, and the
    code that runs is the image's (ROMFS comes first on sys.path)."""
    files, _game = game_files(tmp_path)
    files.update(ep.firmware_files())
    with ep.EmulatedPico(uf2=ep.stock_uf2(), files=files) as pico:
        assert pico.boot() == "running"
        pico.advance(300)
        shown = pico.displays()
        pico.power_off()
        pico.drag(ep.own_image())
        assert pico.boot() == "running"
        pico.advance(300)
        assert pico.displays() == shown
        assert board_says(pico, "__import__('box.app').app.__file__") == "/rom/lib/box/app.mpy"


def test_flash_and_doctor_on_a_board_with_an_image(old_image, tmp_path):
    """`matchbox flash` onto a box running an older image, with stale littlefs copies of the
    box's code left from the stock path: the ROMFS image is deployed and verified, the copies
    that would never run are removed, the games stay; doctor says which image and code run;
    a second flash finds the image up to date."""
    files, _game = game_files(tmp_path)
    stale = {k: v for k, v in ep.firmware_files().items() if k.startswith("lib/") or k == "main.py"}
    files.update(stale)
    data, _facts = image.romfs_image()
    digest = __import__("hashlib").sha256(data).hexdigest()
    with ep.EmulatedPico(uf2=old_image[0], files=files) as pico:
        pico.boot(wait_lit=False)
        pico.advance(500)
        with ep.PicoPty(pico) as bridge:
            flashed = matchbox("flash", "--port", bridge.port)
            out = flashed.stdout + flashed.stderr
            assert flashed.returncode == 0, out
            assert "ROMFS image deployed and verified by sha256" in out
            assert "removed lib/box/app.mpy (ROMFS comes first on sys.path" in out
            assert "removed main.py (main.py is frozen" in out
            assert "verified: the board runs ROMFS image sha256 %s" % digest in out
            doctor = matchbox("doctor", "--port", bridge.port, "--yes", "--light-seconds", "0.5")
            assert doctor.returncode == 0, doctor.stdout + doctor.stderr
            assert "sha256 %s (the same as this checkout's)" % digest in doctor.stdout
            assert "box modules from /rom/lib/box" in doctor.stdout
            assert "from /lib" not in doctor.stdout
            again = matchbox("flash", "--port", bridge.port)
            assert again.returncode == 0, again.stdout + again.stderr
            assert "ROMFS image up to date" in again.stdout and "deployed" not in again.stdout
        left = pico.read_files()
        assert not [p for p in left if p.startswith("lib/") or p == "main.py"]
        assert {k: v for k, v in left.items() if k.startswith("games/")} == \
            {k: v for k, v in files.items() if k.startswith("games/")}
        assert romfs_on_flash(pico) == data


def _deploy_ops(romfs_bytes):
    blocks = math.ceil(romfs_bytes / 4096)
    return blocks, 2 * blocks   # an erase per block, then a program per block


def test_a_romfs_deploy_cut_by_the_power_leaves_a_box_that_says_what_to_do(old_image, tmp_path,
                                                                          say_count):
    """Cut the power before a flash operation of the ROMFS deploy: the image's header is erased
    first and written last, so the box boots either the whole new image or no image, and then
    main.py shows COdE Err and says on USB what to do; `matchbox flash` again brings it back
    with its game. `make test` cuts after the first erase and before the header's write;
    MATCHBOX_ROMFS_CUTS=all (make romfs-cuts-pico) before every erase and program."""
    files, _game = game_files(tmp_path)
    # flash writes a missing pin map to littlefs before the deploy (main.py reads it to show
    # its code); here it is there already, so the deploy's operations are the first ones
    files["pinmap.json"] = ep.firmware_files()["pinmap.json"]
    data, _facts = image.romfs_image()
    blocks, ops = _deploy_ops(len(data))
    # cut_after(k): the power goes before the (k+1)-th operation; before the first (k = 0) the
    # old image is whole and runs on
    cuts = range(ops) if ALL_CUTS else (1, ops - 1)
    for cut in cuts:
        with ep.EmulatedPico(uf2=old_image[0], files=files) as pico:
            assert pico.boot() == "running"
            pico.advance(300)
            shown = pico.displays()
            with ep.PicoPty(pico) as bridge:
                bridge.call(pico.cut_after, cut)
                flashed = matchbox("flash", "--port", bridge.port, timeout=120)
                out = flashed.stdout + flashed.stderr
                assert flashed.returncode != 0 and "Traceback" not in out, out
                assert pico.cuts == 1, "cut %d did not strike" % cut
                want = shown[:2] if cut == 0 else CODE_SHOWN
                for _ in range(400):
                    if pico.displays()[:2] == want:
                        break
                    time.sleep(0.05)
                assert pico.displays()[:2] == want, (cut, pico.displays())
                if cut:
                    assert any("matchbox flash" in line for line in pico.console), cut
                again = matchbox("flash", "--port", bridge.port)
                assert again.returncode == 0, again.stdout + again.stderr
                for _ in range(400):
                    if pico.displays() == shown:
                        break
                    time.sleep(0.05)
                assert pico.displays() == shown, cut
            assert romfs_on_flash(pico) == data
    say_count("emulated Pico: %d power cuts in a %d-block ROMFS deploy (%d flash operations), "
              "%d survived: each showed COdE Err, then flash brought the game back"
              % (len(cuts), blocks, ops, len(cuts)))


def test_sim_pico_boots_a_given_uf2_and_refuses_what_is_not_one(tmp_path):
    keys = " ".join(setup_keys(*SETUP) + "5 PLAY 7 PLAY PASS".split())
    unix = matchbox("sim", "--headless", "--keys", keys)
    ours = matchbox("sim", "--headless", "--pico", "--uf2", ep.own_image(), "--keys", keys)
    assert unix.returncode == 0 and ours.returncode == 0, unix.stderr + ours.stderr
    assert json.loads(ours.stdout) == json.loads(unix.stdout)
    picow = matchbox("sim", "--headless", "--pico", "--uf2", ep.own_image("picow"), "--keys", keys)
    assert picow.returncode == 0, picow.stderr
    assert json.loads(picow.stdout) == json.loads(unix.stdout)
    assert ep.image_board(ep.own_image("picow")) == "picow" and ep.image_board(ep.own_image()) == "pico"
    if STOCK is None:
        stock = matchbox("sim", "--headless", "--pico", "--uf2", ep.stock_uf2(), "--keys", keys)
        assert stock.returncode == 0, stock.stderr
        assert json.loads(stock.stdout) == json.loads(unix.stdout)
    notuf2 = tmp_path / "firmware.uf2"
    notuf2.write_bytes(b"not a firmware image\n" * 30)
    bad = matchbox("sim", "--headless", "--pico", "--uf2", notuf2)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and "not a UF2 file" in bad.stderr
    alone = matchbox("sim", "--headless", "--uf2", ep.own_image())
    assert alone.returncode == 2 and "--uf2: goes with --pico" in alone.stderr

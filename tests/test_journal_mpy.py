"""The portable journal tests, run under the MicroPython unix port; and the box's boot on it:
the record reader is imported to read the journal and let go after, its heap given back."""
import os
import subprocess
import textwrap

from mpy import LIB, micropython, run_portable


def test_journal_under_micropython():
    passed, failed, output = run_portable(["test_journal"])
    assert failed == 0, output
    assert passed > 0, output


# Runs alone under MicroPython: nothing but the journal loads tycoon.notation.
BOOT = textwrap.dedent("""
    import gc, sys
    from box.journal import Journal
    from tycoon.game import Game
    root = sys.argv[1]
    game = Game(4)
    writer = Journal(root)
    writer.start(game)
    for act in (lambda: game.play([3]), game.pass_turn, game.pass_turn):
        act()
        writer.append(game)
    writer.save_setup(4, 1, "none", 5, 40)
    box = Journal(root)
    assert "tycoon.notation" not in sys.modules
    assert box.load_setup()["players"] == 4
    back, dropped = box.resume()
    gc.collect()
    loaded = gc.mem_alloc()
    assert "tycoon.notation" in sys.modules and "tycoon.line" in sys.modules
    assert dropped == 0 and len(back) == 3
    box.forget_reader()
    gc.collect()
    after = gc.mem_alloc()
    assert "tycoon.notation" not in sys.modules and "tycoon.line" not in sys.modules
    assert "box.resume" not in sys.modules
    assert not hasattr(sys.modules["tycoon"], "notation")
    assert not hasattr(sys.modules["tycoon"], "line")
    print("freed", loaded - after)
    # the game read goes on, and a later read loads the reader again
    back.pass_turn()
    box.append(back)
    reread = Journal(root)
    again, dropped = reread.resume()
    assert len(again) == 4 and dropped == 0
    assert "tycoon.repair" not in sys.modules   # a whole journal never loads the repair
    reread.forget_reader()
    # a damaged line: the repair is loaded to read it, and let go with the reader
    with open(root + "/current.txt", "rb") as f:
        data = f.read()
    at = data.index(b"2: pass")
    with open(root + "/current.txt", "wb") as f:
        f.write(data[:at] + b"2:?p" + data[at + 7:])
    box = Journal(root)
    back, dropped = box.resume()
    assert len(back) == 4 and box.repaired == 1 and "tycoon.repair" in sys.modules
    box.forget_reader()
    assert "tycoon.repair" not in sys.modules and not hasattr(sys.modules["tycoon"], "repair")
    # a resume from the snapshot loads the reader too (to unpack the game): let go the same
    import os
    snap = root + "-snap"
    writer = Journal(snap)
    writer.snap_every = 1
    game = Game(4)
    writer.start(game)
    game.play([3])
    writer.append(game)
    writer.checkpoint(game)
    assert "current.snap" in os.listdir(snap) and "tycoon.notation" not in sys.modules
    box = Journal(snap)
    back, dropped = box.resume()
    assert len(back) == 1 and dropped == 0 and "tycoon.notation" in sys.modules
    box.forget_reader()
    assert "tycoon.notation" not in sys.modules and "tycoon.line" not in sys.modules
    print("ok")
""")


def test_boot_lets_the_record_reader_go(tmp_path):
    script = tmp_path / "boot.py"
    script.write_text(BOOT)
    games = tmp_path / "games"
    proc = subprocess.run([micropython(), "-X", "heapsize=1M", str(script), str(games)],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MICROPYPATH=LIB))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and out.endswith("ok\n"), out
    # compiled from source here, the reader takes several KB, and they must come back (what
    # stays is the game read and the names the reader interned)
    assert int(out.split()[1]) > 4000, out

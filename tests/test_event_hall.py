"""The hall's side of an event while it serves (`matchbox hall serve`): each box gets its
table's setup on its own setup topic, retained, and no other box's; a box without a table in
the round has its topic cleared (an empty retained message); the page carries the event's block
and /event.json; Mosquitto's ACL gives the same rule."""
import json
import subprocess
import sys

from hall_helpers import Client, box_password, served, until
from host_tools.hall import mosquitto, protocol

CLI = [sys.executable, "-m", "host_tools.cli"]


def event(*argv):
    out = subprocess.run(CLI + ["event"] + [str(a) for a in argv], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_each_box_gets_its_own_tables_setup(tmp_path):
    with served(tmp_path, "amqtt", boxes=("t1", "t2", "t3")) as hall:
        assert json.loads(hall.get("/event.json")) is None
        page = hall.get("/").decode()
        assert 'id="event"' in page and "window.EW" in page and "{{" not in page
        event("create", hall.folder, "--rounds", 2, "--table-size", 4, "--sticks", 30)
        event("add", hall.folder, *"Ann Ben Cid Dan Eve Fay Gus Hal".split())
        event("next", hall.folder)
        t1 = Client(hall.mqtt, "t1", box_password(hall, "t1"))
        t3 = Client(hall.mqtt, "t3", box_password(hall, "t3"))
        try:
            assert t1.subscribe(protocol.setup_topic("t1")) == 1
            assert t1.subscribe(protocol.setup_topic("t2")) == 0x80   # not its own: refused
            assert t3.subscribe(protocol.setup_topic("t3")) == 1
            assert until(lambda: t1.messages, 10)
            topic, payload = t1.messages[0]
            setup = json.loads(payload)
            assert topic == "matchbox/t1/setup" and setup["round"] == 1 and \
                setup["table"] == 1 and setup["players"] == 4 and setup["sticks"] == 30
            # t3 has no table in round 1: its topic holds nothing (the empty retained message
            # the hall sent cleared it), so a box that connects gets no old setup
            assert not until(lambda: t3.messages, 1)
            assert len(t1.messages) == 1
            view = json.loads(hall.get("/event.json"))
            assert view["round"] == 1 and len(view["tables"]) == 2
        finally:
            t1.close()
            t3.close()


def test_a_scripted_box_waits_on_the_wall_clock_for_its_tables_setup(tmp_path):
    """`sim --headless --uplink` runs WAIT:MS on the wall clock too: the link talks to a real
    broker, so a script that waits before its PLAY gets the round's setup, not the menu's."""
    with served(tmp_path, "amqtt", boxes=("t1",)) as hall:
        event("create", hall.folder, "--rounds", 1, "--table-size", 4, "--sticks", 30)
        event("add", hall.folder, *"Ann Ben Cid Dan".split())
        event("next", hall.folder)
        out = subprocess.run(CLI + ["sim", "--headless", "--flash", str(tmp_path / "t1"),
                                    "--uplink", hall.urls["t1"], "--keys", "WAIT:3000 PLAY"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        journal = json.loads(out.stdout)["journal"]
        assert journal.startswith("players 4 ") and "\nsticks 30 " in journal, journal


def test_mosquittos_acl_gives_each_box_its_setup_topic():
    text = mosquitto.acl_text(["t1", "t2"])
    block = text.split("user t1\n")[1].split("\n\n")[0].splitlines()
    assert block == ["topic write matchbox/t1/journal", "topic read matchbox/t1/ack",
                     "topic read matchbox/t1/setup"]
    hall = text.split("user hall\n")[1].split("\n\n")[0].splitlines()
    assert "topic write matchbox/+/setup" in hall


def test_the_event_on_the_page_at_360_px(tmp_path):
    """The page's event block in Chromium (skipped without it): the round, each table's
    players by name, the standings; in German with ?lang=de; nothing wider than a phone."""
    import shutil
    import pytest
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("browser tests need Chromium: apt-get install chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[dev]'")
    names = "Ann Ben Cid Dan Eve Fay Gus Hal".split() + ["Bartholomew Featherstonehaugh"]
    with served(tmp_path, "amqtt", boxes=("t1", "t2", "t3")) as hall:
        event("create", hall.folder, "--rounds", 2, "--table-size", "4-5", "--name", "Cup")
        event("add", hall.folder, *names)
        event("next", hall.folder)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=["--headless", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 360, "height": 780})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("http://127.0.0.1:%d/" % hall.http)
            page.wait_for_function("document.querySelectorAll('#event section.seated')"
                                   ".length == 2", timeout=20000)
            text = page.inner_text("#event")
            assert "Cup · Round 1 of 2" in text and "Standings after round 1" in text
            assert all(name in text for name in names)
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            page.goto("http://127.0.0.1:%d/?lang=de" % hall.http)
            page.wait_for_function("document.querySelectorAll('#event section.seated')"
                                   ".length == 2", timeout=20000)
            assert "Runde 1 von 2" in page.inner_text("#event")
            browser.close()
            assert errors == []

"""The hall's live page in a real browser (Debian's Chromium, headless, via Playwright) at
360 px wide, as a phone shows it: every table with its displays drawn by the firmware's
screens, whose turn, the places, the standings; a box's new lines reach the open page through
the audience broker (MQTT over WebSockets, npm's mqtt in the page), without a reload, and the
other tables' cards stay as they were; the same over /events from a hall without one."""
import re
import shutil
import subprocess

import pytest

from hall_helpers import CLI, Hall, enrol, game_ops

from host_tools import words
from host_tools.virtual.display_svg import GAP, MARGIN, MODULE_W

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None:
    pytest.skip("browser tests need Chromium: apt-get install chromium", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[dev]'")

pytestmark = pytest.mark.timeout(240)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SETUP = (3, 1, "none", 5, 6, [4, 3, 4])

CARDS_JS = """() => [...document.querySelectorAll('section.table')].map(c => ({
  box: c.dataset.box, text: c.innerText,
  lit: c.querySelectorAll('svg.displays .on').length,
  segments: [...c.querySelectorAll('svg.displays [id^=d]')].filter(e => /^d[0-3]-[0-3][a-gp]$/.test(e.id))
    .map(e => e.classList.contains('on') ? 1 : 0).join(''),
  width: c.getBoundingClientRect().width}))"""


LAST_JS = """() => Object.fromEntries([...document.querySelectorAll('section.table')].map(c =>
  [c.dataset.box, [...c.querySelectorAll('ul.last li')].map(li => li.textContent)]))"""
# Each label's centre and the centre of the display above it (display_svg's geometry: 5 mm
# margins, 50 mm displays, 6 mm gaps), in pixels, and its text's size.
LABELS_JS = """box => {
  const card = document.querySelector('section.table[data-box=' + box + ']');
  const img = card.querySelector('svg.displays').getBoundingClientRect();
  const mm = img.width / (2 * %s + 4 * %s + 3 * %s);
  return [...card.querySelectorAll('.labels span')].map((s, i) => {
    const r = s.getBoundingClientRect();
    return {text: s.textContent, px: parseFloat(getComputedStyle(s).fontSize),
            centre: r.left + r.width / 2, display: img.left + mm * (%s + %s / 2 + i * (%s + %s)),
            below: r.top >= img.bottom - 1, width: r.width, room: mm * %s};
  });
}""" % (MARGIN, MODULE_W, GAP, MARGIN, MODULE_W, MODULE_W, GAP, MODULE_W)


def check_labels(page, lang):
    """The unfinished table's displays are named under them in the page's language, each
    centred under its display, in text at least 11 px high; the finished one's are not."""
    labels = page.evaluate(LABELS_JS, "t2")
    assert [l["text"] for l in labels] == list(words.words(lang)["hall_display_names"])
    for label in labels:
        assert label["px"] >= 11 and label["below"], label
        assert abs(label["centre"] - label["display"]) < 2 and label["width"] <= label["room"], label
    assert page.evaluate(LABELS_JS, "t1") == []


def segments(displays):
    """The page's lit segments of a view's displays, in the order of the picture's parts."""
    return "".join("%d" % (d[5] and d[j] >> b & 1) for d in displays for j in range(4)
                   for b in range(8))


def sim(flash, url, keys):
    out = subprocess.run(CLI + ["sim", "--headless", "--flash", flash, "--uplink", url,
                                "--keys", " ".join(keys)],
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("audience", [True, False], ids=["audience", "events"])
def test_the_page_at_360_px(tmp_path, audience):
    folder = str(tmp_path / "hall")
    hall = Hall(folder, extra=[] if audience else ["--no-audience"])
    urls = {b: enrol(folder, b, hall.mqtt) for b in ("t1", "t2")}
    hall.start()
    try:
        finished, game = game_ops(3, SETUP, 60)
        sim(str(tmp_path / "t1"), urls["t1"], [k for op in finished for k in op])
        started, _ = game_ops(4, SETUP, 6)
        sim(str(tmp_path / "t2"), urls["t2"], [k for op in started[:4] for k in op])
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
            page = browser.new_page(viewport={"width": 360, "height": 780})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto("http://127.0.0.1:%d/" % hall.http)
            page.wait_for_function("document.querySelectorAll('section.table svg.displays').length == 2",
                                   timeout=20000)
            assert page.evaluate("!!window.mqtt") == audience
            cards = {c["box"]: c for c in page.evaluate(CARDS_JS)}
            views = hall.tables()
            for box in ("t1", "t2"):   # the displays as the firmware's screens draw them
                assert cards[box]["segments"] == segments(views[box]["displays"]), box
                assert cards[box]["lit"] > 4
            assert cards["t1"]["text"].count("finished") == 1
            assert "out: 1. P%d" % game.ranking[0] in cards["t1"]["text"]
            assert "to act" in cards["t2"]["text"]
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
            assert all(c["width"] <= 360 for c in cards.values())
            page.screenshot(path=str(tmp_path / "page.png"), full_page=True)
            assert "P%d" % game.ranking[0] in page.inner_text("#standings")
            # the last actions in words, the seat named, no list number; the displays named
            # under their pictures at the page's size of text; the points in plain words
            raw = {t["box"]: t["last"] for t in page.evaluate(
                "fetch('/tables.json').then(r => r.json())")}
            shown = page.evaluate(LAST_JS)
            assert shown["t1"] == page.evaluate("l => l.map(actionWords)", raw["t1"])
            assert shown["t1"] and all(re.fullmatch(r"Seat \d (played [0-9A-HbdC ]+( as [0-9A-HbdC])?"
                                                    r"|passed|returned a matchstick)|Undo: .*", a)
                                       for a in shown["t1"] + shown["t2"]), shown
            assert page.evaluate("document.querySelectorAll('ol').length") == 0
            assert page.evaluate("getComputedStyle(document.querySelector('ul.last'))"
                                 ".listStyleType") == "none"
            for line, said in (("2: play 3 B as D", "Seat 2 played 3 b as d"),
                               ("1: PLAY 7 7", "Seat 1 played 7 7"), ("3: pass", "Seat 3 passed"),
                               ("4: return", "Seat 4 returned a matchstick"),
                               ("undo", "Undo: the action before was taken back"),
                               ("play 5", "play 5")):
                assert page.evaluate("actionWords", line) == said
            check_labels(page, "en")
            assert words.words("en")["hall_points_places"] in page.inner_text("#standings")
            assert "n - place" not in page.inner_text("body")
            assert page.evaluate("pointsWords([10, 6, 4])") == (
                "Points: place 1: 10, place 2: 6, place 3: 4; places further down get 0.")
            svg = page.evaluate("document.querySelector('svg.displays').outerHTML")
            assert "<svg" in svg and "<text" not in svg   # no labels drawn inside the picture
            before = cards["t2"]["text"]
            page.evaluate("document.querySelector('section.table[data-box=t1]').kept = 1")
            sim(str(tmp_path / "t2"), urls["t2"], [k for op in started[4:] for k in op])
            page.wait_for_function("t => document.querySelector('section.table[data-box=t2]')"
                                   ".innerText != t", arg=before, timeout=20000)
            # the events carry t2 only: t1's card is merged around, not drawn again
            assert page.evaluate("document.querySelector('section.table[data-box=t1]').kept") == 1
            assert [c["box"] for c in page.evaluate(CARDS_JS)] == ["t1", "t2"]
            if audience:   # ?audience=HOST:PORT: the broker named (a leaf node's), not the hall's
                sockets = []
                page.on("websocket", lambda ws: sockets.append(ws.url))
                page.goto("http://localhost:%d/?audience=127.0.0.1:%d" % (
                    hall.http, hall.audience()["port"]))
                page.wait_for_function("document.querySelectorAll('section.table').length == 2",
                                       timeout=20000)
                assert sockets == ["ws://127.0.0.1:%d/mqtt" % hall.audience()["port"]]
            # ?lang=ja: the labels and phrases in Japanese (host_tools.words)
            ja = words.words("ja")
            page.goto("http://127.0.0.1:%d/?lang=ja" % hall.http)
            page.wait_for_function("document.querySelectorAll('section.table').length == 2",
                                   timeout=20000)
            assert page.evaluate("document.documentElement.lang") == "ja"
            assert page.inner_text("h1[data-w=hall_standings]") == ja["hall_standings"]
            cards = {c["box"]: c for c in page.evaluate(CARDS_JS)}
            assert ja["hall_finished"] in cards["t1"]["text"]
            assert ja["hall_out"].replace("{places}", "1. P%d%s2. P" % (
                game.ranking[0], ja["hall_comma"])) in cards["t1"]["text"]
            assert ja["hall_seat"] in cards["t2"]["text"] and "to act" not in cards["t2"]["text"]
            assert ja["hall_to_act"].split("{")[0] in cards["t2"]["text"]
            assert page.get_attribute("section.table[data-box=t1] svg", "aria-label") == \
                ja["hall_displays_of"].replace("{box}", "t1")
            assert all(a.startswith("席") or a.startswith("取り消し")
                       for a in page.evaluate(LAST_JS)["t1"])
            assert page.evaluate("actionWords", "2: play 3 B as D") == "席2が 3 b を d として出した"
            check_labels(page, "ja")
            assert ja["hall_points_places"] in page.inner_text("#standings")
            # the Japanese words in IPAexGothic, which the hall serves (no system font needed)
            assert page.evaluate("document.fonts.ready.then(() => [...document.fonts]"
                                 ".map(f => f.family + ' ' + f.status))") == ["IPAexGothic loaded"]
            # no ?lang: the browser's language (German here)
            german = browser.new_page(locale="de-DE")
            german.goto("http://127.0.0.1:%d/" % hall.http)
            german.wait_for_function("document.querySelectorAll('section.table').length == 2",
                                     timeout=20000)
            de = words.words("de")
            assert german.inner_text("h1[data-w=hall_standings]") == de["hall_standings"]
            assert de["hall_finished"] in german.inner_text("section.table[data-box=t1]")
            assert german.evaluate("[...document.fonts].map(f => f.status)") == ["unloaded"]
            assert german.evaluate("actionWords", "1: play 7 as C") == "Spieler 1 spielt 7 als C"
            check_labels(german, "de")
            assert de["hall_points_places"] in german.inner_text("#standings")
            assert errors == []
            browser.close()
    finally:
        hall.stop()

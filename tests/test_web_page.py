"""The web page of `matchbox web` in a real browser (Debian's Chromium, headless, via Playwright).

The page runs the real firmware under MicroPython WebAssembly; these tests play it with clicks
and the keyboard and, after every key, compare the segments lit on the page with what the
virtual box (the same firmware under the unix port, host_tools.virtual.box) shows for the same
keys. One browser and one page for the module; each test starts from an empty storage.
"""
import json
import os
import shutil
import subprocess
import sys
import threading

import pytest

from host_tools.commands import web
from host_tools.resources import CHECKOUT as ROOT
from host_tools.virtual.box import VBox, setup_keys
from host_tools.virtual.display_svg import from_chip

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

if CHROMIUM is None:
    pytest.skip("browser tests need Chromium: apt-get install chromium", allow_module_level=True)
if not all(os.path.isfile(os.path.join(web.WASM, n)) for n in web.WASM_FILES):
    pytest.skip("browser tests need the WebAssembly build: make web-deps", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[dev]'")

# Keys as the keyboard types them (the terminal simulator's map, host_tools/terminal/tui.py).
TYPED = {"AS": "s", "PLAY": "Enter", "PASS": "p", "DEL": "Backspace", "UNDO": "u", "MENU": "m"}
# A whole game of three seats: an illegal PASS, a revolution, the quick reference, an UNDO,
# a play refused as too weak, compulsory returns, the ranking, then a long MENU (setup menu).
GAME = ["PASS", "7 7 7 7 1 AS 7 PLAY", "MENU 3 3 MENU", "PASS", "UNDO", "PASS", "PASS",
        "8 PLAY", "9 PLAY", "PASS", "3 PLAY", "2 PLAY", "PLAY", "0 PLAY", "PLAY PLAY PLAY PLAY",
        "MENU:long"]
SETUP = setup_keys(3, hands=[6, 2, 1])

SHOWN_JS = """() => [0, 1, 2, 3].map(i => {
  const on = id => document.getElementById(id).classList.contains('on') ? 1 : 0;
  const masks = [0, 1, 2, 3].map(j => [...'abcdefgp'].reduce(
      (m, s, b) => m | (on('d' + i + '-' + j + s) << b), 0));
  return [masks, on('d' + i + '-c1') === 1 && on('d' + i + '-c2') === 1,
          !document.getElementById('d' + i).classList.contains('dark')];
})"""
PANEL_JS = """() => ({turn: document.getElementById('p-turn').textContent,
  order: document.getElementById('p-order').textContent,
  table: document.getElementById('p-table').textContent,
  seats: [...document.querySelectorAll('#seats tr')].map(tr => [...tr.children].map(td => td.textContent)),
  log: [...document.querySelectorAll('#log li')].map(li => li.textContent)})"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("site"))
    web.build(folder)
    httpd = web.server(folder, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield "http://127.0.0.1:%d/" % httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(site, tmp_path_factory):
    profile = str(tmp_path_factory.mktemp("profile"))
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS,   # the fresh profile is the user data dir
            accept_downloads=True, viewport={"width": 1280, "height": 900})
        page = context.pages[0] if context.pages else context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site)
        page.errors = errors
        yield page
        context.close()


@pytest.fixture
def page(browser):
    """The page on a new box: empty storage, reloaded."""
    browser.evaluate("localStorage.clear()")
    reload(browser)
    yield browser
    assert browser.errors == []


def reload(page):
    page.reload()
    page.wait_for_selector("body[data-ready='1']", timeout=30000)
    settle(page)


def settle(page):
    page.wait_for_function("window.matchbox.quiet()", timeout=10000)


def enter(page, word, by_click):
    """One key word on the page: a click (or, for NAME:long, the mouse held 1 s) or a typed key."""
    name, _, long = word.partition(":")
    button = page.locator('[data-key="%s"]' % name)
    if long:
        button.hover()
        page.mouse.down()
        page.wait_for_timeout(1000)
        page.mouse.up()
    elif by_click:
        button.click()
    else:
        page.keyboard.press(TYPED.get(name, name.lower()))
    settle(page)


def tap(box, word):
    name, _, long = word.partition(":")
    box.tap(name, 1000 if long else 60, 60)


def expected(box):
    out = []
    for addr in box.devices:
        masks, colon, lit = from_chip(box.chips[addr])
        out.append([list(masks) if lit else [0, 0, 0, 0], bool(colon and lit), lit])
    return out


def play(page, box, words, start=0):
    """Each key word on the page and on the virtual box; after each, the same segments lit."""
    for i, word in enumerate(words, start):
        enter(page, word, by_click=i % 2 == 0)
        tap(box, word)
        assert page.evaluate(SHOWN_JS) == expected(box), "after key %d (%s): %s" % (
            i, word, box.displays())


def seats(state):
    return [[str(s["seat"]), str(s["cards"]), str(s["sticks"]), str(s["rank"] or "")]
            for s in state["seats"]]


def panel_seats(panel):
    return [[row[0].lstrip("\u25b6 ")] + row[1:] for row in panel["seats"]]


def test_whole_game_clicked_and_typed_matches_the_virtual_box(page):
    with VBox() as box:
        box.boot()
        assert page.evaluate(SHOWN_JS) == expected(box)      # the setup menu of a new box
        play(page, box, SETUP)
        heard, told = tones(page), len(box.tones)
        play(page, box, ["PASS"])                            # illegal: two low tones
        page.wait_for_timeout(400)
        box.advance(400)
        begun = [t for t in box.tones[told:] if t[2]]
        assert [t[1] for t in begun] == [220, 220]
        assert tones(page) == heard + len(begun)
        words = " ".join(GAME[1:-1]).split() + ["MENU:long"]
        play(page, box, words, len(SETUP) + 1)
        panel = page.evaluate(PANEL_JS)
        game = box.dump()["game"]
    assert game["finished"] and game["revolution"]
    assert panel["turn"] == "game over, ranking " + " ".join(map(str, game["ranking"]))
    assert panel_seats(panel) == seats(game)
    assert panel["order"] == "REVOLUTION: order reversed, 0 strongest"
    log = panel["log"]
    assert "seat 1 played 5 x 7 (1 stick)" in log
    assert "revolution! 0 is now strongest" in log
    assert "undo (taken back: seat 2 passed)" in log
    assert log[-1] == "game over: ranking 1 3 2"


SETUP_JS = """() => ({open: !document.getElementById('setup').hidden,
  items: [...document.querySelectorAll('#setup-items li')].map(li => li.textContent),
  now: [...document.querySelectorAll('#setup-items li.now')].map(li => li.dataset.item),
  happened: !document.getElementById('happened').hidden && !document.getElementById('log').hidden})"""


def test_the_setup_menu_is_explained_and_what_happened_waits_for_the_game(page):
    from host_tools import words
    said = words.words("en")
    shown = page.evaluate(SETUP_JS)
    assert shown["open"] and shown["now"] == ["PL"] and not shown["happened"]
    assert shown["items"] == ["%s %s" % (words.SETUP_SHOWN[item], said["setup_items"][item])
                              for item in words.setup_items()]
    assert page.inner_text("#setup h2") == said["setup"]
    assert page.inner_text("#setup p") == said["web_setup_help"]
    enter(page, "3", by_click=True)
    enter(page, "PLAY", by_click=False)
    assert page.evaluate(SETUP_JS)["now"] == ["dL"]
    for word in ["PLAY"] * 4:
        enter(page, word, by_click=True)
    assert page.evaluate(SETUP_JS)["now"] == ["1=14"]   # the seats' cards, one item
    for word in ["PLAY"] * 3:
        enter(page, word, by_click=True)
    shown = page.evaluate(SETUP_JS)
    assert not shown["open"] and shown["happened"]
    assert page.evaluate(PANEL_JS)["log"]                   # the heading has its lines
    enter(page, "MENU:long", by_click=True)                 # the menu again, for a new game
    assert page.evaluate(SETUP_JS)["open"] and page.evaluate(SETUP_JS)["now"] == ["PL"]


def test_the_keypad_labels_its_faces_as_the_displays_show_them(page):
    labels = page.evaluate("Object.fromEntries([...document.querySelectorAll('#keypad [data-key]')]"
                           ".map(b => [b.dataset.key, b.textContent]))")
    assert labels["B"] == "b" and labels["D"] == "d"
    assert [labels[k] for k in "0123456789ACEF"] == list("0123456789ACEF")
    assert page.evaluate("document.querySelector('[data-key=G]').textContent") == "G"


def test_keyboard_alone_tab_to_a_key_and_press_it(page):
    with VBox() as box:
        box.boot()
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.dataset.key") == "2"
        page.keyboard.press("Enter")            # the focused key, not PLAY
        settle(page)
        tap(box, "2")
        assert page.evaluate(SHOWN_JS) == expected(box)
        assert box.displays()[0] == "PL 2"


def tones(page):
    return int(page.get_attribute("#buzzer", "data-tones") or 0)


def test_reload_is_a_power_cut_and_the_game_resumes(page):
    moves = "7 7 7 7 1 AS 7 PLAY PASS".split()
    with VBox() as box:
        box.boot()
        play(page, box, SETUP + moves)
        page.wait_for_timeout(1600)     # the revolution's announcement is over
        box.advance(1600)
        before = page.evaluate(SHOWN_JS)
        panel = page.evaluate(PANEL_JS)
        box.kill()
        box.boot()
        reload(page)
        assert page.evaluate(SHOWN_JS) == before == expected(box)
        after = page.evaluate(PANEL_JS)
        assert panel_seats(after) == panel_seats(panel) == seats(box.state())
        assert after["turn"] == panel["turn"] == "seat 3"
        play(page, box, ["PASS"])       # and the game goes on from there
        assert panel_seats(page.evaluate(PANEL_JS)) == seats(box.state())


def test_downloaded_record_replays_to_the_state_on_the_page(page, tmp_path):
    moves = "7 7 7 7 1 AS 7 PLAY PASS UNDO PASS PASS 8 PLAY".split()
    with VBox() as box:
        box.boot()
        play(page, box, SETUP + moves)
        vstate = box.state()
    with page.expect_download() as info:
        page.click("#download")
    path = str(tmp_path / "game.txt")
    info.value.save_as(path)
    with open(path) as f:
        text = f.read()
    assert "#~" not in text and text.startswith("players 3\n")   # plain notation, no checksums
    out = subprocess.run([sys.executable, "-m", "host_tools.cli", "replay", "--json", path],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)["state"]
    assert state == vstate
    panel = page.evaluate(PANEL_JS)
    assert panel_seats(panel) == seats(state)
    assert panel["turn"] == "seat %d" % state["turn"]


def test_loading_a_record_checks_it_with_the_replay_reader(page):
    bad = os.path.join(ROOT, "tests", "games", "illegal-not-stronger.txt")
    before = page.evaluate(SHOWN_JS)
    page.set_input_files("#load", bad)
    page.wait_for_function("document.getElementById('message').classList.contains('error')")
    out = subprocess.run([sys.executable, "-m", "host_tools.cli", "replay", bad],
                         capture_output=True, text=True, cwd=ROOT)
    line = out.stderr.strip().splitlines()[0]                  # path:line: kind: code
    message = page.text_content("#message")
    assert message == "illegal-not-stronger.txt" + line[len(bad):]
    assert page.evaluate(SHOWN_JS) == before                   # nothing changed
    good = os.path.join(ROOT, "tests", "games", "revolution.txt")
    page.set_input_files("#load", good)
    page.wait_for_function("!document.getElementById('message').classList.contains('error')")
    settle(page)
    with VBox() as box:
        os.makedirs(os.path.join(box.flash, "games"))
        shutil.copy(good, os.path.join(box.flash, "games", "current.txt"))
        box.boot()
        box.advance(100)
        assert page.evaluate(SHOWN_JS) == expected(box)
        assert panel_seats(page.evaluate(PANEL_JS)) == seats(box.state())


@pytest.mark.parametrize("lang", ["ja", "de"])
def test_the_labels_in_the_language_asked_for(browser, site, lang):
    from host_tools import words
    said = words.words(lang)
    try:
        browser.goto(site + "?lang=" + lang)
        browser.wait_for_selector("body[data-ready='1']", timeout=30000)
        assert browser.evaluate("document.documentElement.lang") == lang
        for key in ("web_download", "web_game", "web_happened", "web_keymap", "web_on"):
            assert browser.inner_text("#message" if key == "web_on" else "[data-w=%s]" % key) \
                == said[key], key
        assert browser.inner_text("#seat-table thead").split() == [
            said[k] for k in ("web_seat", "web_cards", "web_sticks", "web_rank")]
        # IPAexGothic, fetched for the Japanese characters only
        fonts = browser.evaluate("document.fonts.ready.then(() => [...document.fonts]"
                                 ".map(f => f.status))")
        assert fonts == ["loaded" if lang == "ja" else "unloaded"]
    finally:
        browser.goto(site)
        browser.wait_for_selector("body[data-ready='1']", timeout=30000)
    assert browser.evaluate("document.documentElement.lang") == "en"
    assert browser.errors == []


@pytest.mark.parametrize("lang", ["ja", "de"])
def test_what_happens_in_the_language_asked_for(page, site, lang):
    """The turn, order and table lines and the log in the reader's language: the virtual box's
    states after the same keys, worded by state_log with host_tools.words' phrases."""
    from host_tools import words
    from host_tools.reports import state_log
    said = words.words(lang)
    try:
        page.goto(site + "?lang=" + lang)
        page.wait_for_selector("body[data-ready='1']", timeout=30000)
        settle(page)
        states = []
        with VBox() as box:
            box.boot()
            play(page, box, SETUP)
            for word in ["7", "PLAY", "PASS", "UNDO"]:
                states.append(box.state())
                play(page, box, [word])
            states.append(box.state())
        panel = page.evaluate(PANEL_JS)
        log = [state_log.say(e, said) for e in state_log.entries(None, states[0])]
        for prev, cur in zip(states, states[1:]):
            log += [state_log.say(e, said) for e in state_log.entries(prev, cur)]
        assert panel["log"] == log
        assert panel["log"][-1] != state_log.say(state_log.entries(states[-2], states[-1])[0])
        last = states[-1]
        assert panel["turn"] == said["web_to_act"].replace("{seat}", str(last["turn"]))
        assert panel["order"] == state_log.say(state_log.order_entry(last), said)
        assert panel["table"] == state_log.say(state_log.table_entry(last), said)
        page.evaluate("document.getElementById('download').click()")
        assert page.text_content("#message") == said["web_downloaded"]
        bad = os.path.join(ROOT, "tests", "games", "illegal-not-stronger.txt")
        out = subprocess.run([sys.executable, "-m", "host_tools.cli", "replay", bad],
                             capture_output=True, text=True, cwd=ROOT)
        line, kind, code = out.stderr.splitlines()[0][len(bad) + 1:].split(": ")
        page.set_input_files("#load", bad)
        page.wait_for_function("document.getElementById('message').classList.contains('error')")
        assert page.text_content("#message") == said["web_refused"].format(
            name=os.path.basename(bad), line=line, kind=kind, code=code)
    finally:
        page.goto(site)
        page.wait_for_selector("body[data-ready='1']", timeout=30000)


def test_narrow_screen_nothing_overflows(page, tmp_path):
    page.set_viewport_size({"width": 360, "height": 740})
    try:
        for word in "4 PLAY".split():
            enter(page, word, by_click=True)
        page.screenshot(path=str(tmp_path / "narrow.png"), full_page=True)
        overflow = page.evaluate("""() => {
          const w = document.documentElement.clientWidth;
          const out = [];
          for (const el of document.querySelectorAll('body *')) {
            const r = el.getBoundingClientRect();
            if (r.width && (r.left < -0.5 || r.right > w + 0.5)) out.push(el.tagName + '#' + el.id + ' ' + r.left + '..' + r.right);
          }
          return {w: w, scroll: document.documentElement.scrollWidth, out: out};
        }""")
        assert overflow["out"] == [] and overflow["scroll"] <= overflow["w"], overflow
        # the panel goes below the box on a narrow screen, beside it on a wide one
        box = page.locator("#box").bounding_box()
        panel = page.locator("#panel").bounding_box()
        assert panel["y"] >= box["y"] + box["height"] - 1
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})
    box = page.locator("#box").bounding_box()
    panel = page.locator("#panel").bounding_box()
    assert panel["x"] >= box["x"] + box["width"] - 1 and panel["y"] < box["y"] + box["height"]


def test_a_record_typed_by_hand_loaded_and_reloaded_is_the_boxs_game(page, tmp_path):
    """A typed record (defaults left out, CRLF, a comment, no last newline) loaded on the page
    and played on, then the page reloaded (a power cut) twice: the page shows what a box with
    that record copied onto its flash shows after the same keys and power-ups."""
    typed = tmp_path / "typed.txt"
    typed.write_bytes(b"# begun on paper\r\nPLAYERS 3\r\nhands 6 2 1  # short deal\r\n"
                      b"1: play 7 7\r\npass")
    page.set_input_files("#load", str(typed))
    page.wait_for_function("!document.getElementById('message').classList.contains('error')")
    settle(page)
    with VBox() as box:
        os.makedirs(os.path.join(box.flash, "games"))
        shutil.copy(str(typed), os.path.join(box.flash, "games", "current.txt"))
        box.boot()
        box.advance(100)
        assert page.evaluate(SHOWN_JS) == expected(box)
        play(page, box, ["PASS", "8", "8", "PLAY"])
        for _ in range(2):
            box.kill()
            box.boot()
            box.advance(100)
            reload(page)
            assert page.evaluate(SHOWN_JS) == expected(box)
            assert panel_seats(page.evaluate(PANEL_JS)) == seats(box.state())
        assert box.state()["table"]["value"] == "8" and "Lo5t" not in box.displays()

"""The package a maker installs: built from this checkout, installed into a fresh venv, used
from a folder outside the checkout with the checkout nowhere on the path.

`python -m build` makes the sdist and, from it, the wheel (so the sdist is proven complete
too), in a copy of the checkout as a clone has it. Neither carries anything built from
MicroPython (no .uf2, .bin or .elf: the maker downloads MicroPython; no .wasm or .mjs:
`matchbox web` gets the pinned npm package at first use, into a cache that this test fills
beforehand from the checkout's node_modules, so no test here needs the npm registry). The
wheel goes into a new venv with its
dependencies, which come as wheels from a
wheelhouse in .cache/wheelhouse (filled by `pip download` on the first run, from pip's cache
or the index). Each subcommand then runs its ordinary use once, and the installed package
must be byte for byte what it was: nothing a command writes lands inside it.

Every test here shares one install, so they run on one xdist worker (`--dist loadgroup`).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile

import pytest

from host_tools import resources, wasm_cache
from host_tools.resources import CHECKOUT
from host_tools.virtual.box import setup_keys

pytestmark = pytest.mark.xdist_group("package")

WHEELHOUSE = os.path.join(CHECKOUT, ".cache", "wheelhouse")
# What a clone does not have: local venvs, caches, npm installs, build outputs.
NOT_IN_A_CLONE = (".git", ".venv", ".cache", "node_modules", "build", "dist", "*.egg-info",
                  "__pycache__", ".pytest_cache", ".hypothesis", "out")
GAME = os.path.join(CHECKOUT, "tests", "games", "revolution.txt")
KEYS = " ".join(setup_keys(3)) + " 3 AS 9 PLAY PASS"


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert proc.returncode == 0, "%s failed:\n%s\n%s" % (" ".join(cmd), proc.stdout, proc.stderr)
    return proc


def _install(pip, venv_python, wheel):
    cmd = pip + ["--python", venv_python, "install", "-q", "--no-index",
                 "--find-links", WHEELHOUSE, wheel]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:  # the wheelhouse lacks a dependency (first run, or a new pin)
        _run(pip + ["download", "-q", "--dest", WHEELHOUSE, wheel])
        os.remove(os.path.join(WHEELHOUSE, os.path.basename(wheel)))  # only the dependencies
        _run(cmd)


def _source(base):
    """A copy of the checkout to build from; returns its folder."""
    src = os.path.join(base, "src")
    shutil.copytree(CHECKOUT, src, symlinks=True, ignore=shutil.ignore_patterns(*NOT_IN_A_CLONE))
    return src


def _cache(base):
    """The maker's cache folder, holding the WebAssembly build as `matchbox web` keeps it
    (copied from the checkout's node_modules when `make web-deps` filled it); returns it."""
    cache = os.path.join(base, "cache")
    if all(os.path.isfile(os.path.join(resources.WASM, n)) for n in wasm_cache.FILES):
        kept = os.path.join(cache, "matchbox", "wasm-" + wasm_cache.pinned()[0])
        os.makedirs(kept)
        for name in wasm_cache.FILES:
            shutil.copyfile(os.path.join(resources.WASM, name), os.path.join(kept, name))
    part = wasm_cache.HALL_MQTT   # the hall page's MQTT client, as `hall serve` keeps it
    got = part.checkout()
    if got is not None:
        kept = os.path.join(cache, "matchbox", part.prefix + wasm_cache.pinned(part.lock,
                                                                               part.name)[0])
        os.makedirs(kept)
        for name, path in got.items():
            shutil.copyfile(path, os.path.join(kept, name))
    return cache


def _tree(folder, sources_only=False):
    """{relative path: sha256} of every file under folder (sources_only: not in __pycache__,
    where pip compiles the package's .py files, and CPython the checkout's)."""
    out = {}
    for dirpath, dirs, names in os.walk(folder):
        if sources_only:
            dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = hashlib.sha256(f.read()).hexdigest()
    return out


class Installed:
    """The fresh venv with matchbox installed from its wheel, and a work folder outside the
    checkout to run it in."""

    def __init__(self, base):
        started = time.monotonic()
        src = _source(base)
        dist = os.path.join(base, "dist")
        _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, src])
        self.built_s = time.monotonic() - started
        wheels = [n for n in os.listdir(dist) if n.endswith(".whl")]
        assert len(wheels) == 1, wheels
        self.wheel = os.path.join(dist, wheels[0])
        self.sdist = os.path.join(dist, [n for n in os.listdir(dist) if n.endswith(".tar.gz")][0])
        self.venv = os.path.join(base, "venv")
        self.cache = _cache(base)
        _run([sys.executable, "-m", "venv", "--without-pip", self.venv])
        self.python = os.path.join(self.venv, "bin", "python")
        _install([sys.executable, "-m", "pip"], self.python, self.wheel)
        self.installed_s = time.monotonic() - started - self.built_s
        self.site = _run([self.python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                         env=self.env()).stdout.strip()
        self.work = os.path.join(base, "work")
        os.makedirs(self.work)
        self.before = _tree(self.site)

    def env(self):
        """The environment of a maker's shell: this venv's bin first, no PYTHONPATH, nothing
        of the checkout or the dev venv on PATH; bytecode not written, so that every write
        into the package shows."""
        dev_bin = os.path.dirname(os.path.abspath(sys.executable))
        path = [p for p in os.environ.get("PATH", os.defpath).split(os.pathsep)
                if p and not os.path.abspath(p).startswith((CHECKOUT + os.sep, dev_bin))]
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTHON", "VIRTUAL_ENV", "MATCHBOX_"))}
        env.update(PATH=os.pathsep.join([os.path.join(self.venv, "bin")] + path),
                   PYTHONDONTWRITEBYTECODE="1", MPLCONFIGDIR=os.path.join(self.venv, "mpl"),
                   XDG_CACHE_HOME=self.cache)
        return env

    def matchbox(self, *args, stdin=None, status=0):
        proc = subprocess.run(["matchbox"] + list(args), input=stdin, capture_output=True,
                              text=True, cwd=self.work, env=self.env(), timeout=300)
        assert proc.returncode == status, "matchbox %s: exit %d\n%s%s" % (
            " ".join(args), proc.returncode, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    return Installed(str(tmp_path_factory.mktemp("package")))


def _checkout(*args):
    """The same command from the checkout's dev venv, for comparison."""
    return _run([sys.executable, "-m", "host_tools.cli"] + list(args), cwd=CHECKOUT)


def test_the_package_is_imported_from_the_venv_with_its_data(pkg, say_count):
    say_count("package: sdist and wheel built in %.1f s, installed into a fresh venv in %.1f s"
              % (pkg.built_s, pkg.installed_s))
    code = ("import host_tools, tycoon, json; from host_tools import resources as r; "
            "print(json.dumps([host_tools.__file__, tycoon.__file__, r.INSTALLED, r.CHECKOUT, "
            "r.FIRMWARE]))")
    proc = subprocess.run([pkg.python, "-c", code], capture_output=True, text=True,
                          cwd=pkg.work, env=pkg.env())
    assert proc.returncode == 0, proc.stderr
    host, tycoon, installed, checkout, firmware = json.loads(proc.stdout)
    for path in (host, tycoon, firmware):
        assert path.startswith(pkg.site + os.sep), path
    assert installed is True and checkout is None
    # the firmware the package carries is the checkout's, file for file
    assert _tree(firmware, True) == _tree(resources.FIRMWARE, True)
    # and no firmware binary is in the wheel or the sdist
    with zipfile.ZipFile(pkg.wheel) as wheel:
        names = wheel.namelist()
    with tarfile.open(pkg.sdist) as sdist:
        names += sdist.getnames()
    assert not [n for n in names if n.endswith((".uf2", ".bin", ".elf"))]
    # nor MicroPython's WebAssembly build (`matchbox web` gets it by name from npm)
    assert not [n for n in names if n.endswith((".wasm", ".mjs")) or "node_modules" in n
                or "micropython-webassembly" in n]
    dist_info = [n for n in os.listdir(pkg.site) if n.startswith("matchbox-") and n.endswith(".dist-info")]
    licenses = os.listdir(os.path.join(pkg.site, dist_info[0], "licenses"))
    assert sorted(licenses) == ["LICENSE", "THIRD-PARTY.md"]


def test_version_is_the_firmware_version(pkg):
    version = resources.read_version()
    assert pkg.matchbox("--version").stdout == "matchbox %s\n" % version
    proc = _run([pkg.python, "-c", "import importlib.metadata as m; print(m.version('matchbox'))"],
                env=pkg.env())
    assert proc.stdout.strip() == version


def test_sim_headless_plays_as_in_the_checkout(pkg):
    out = pkg.matchbox("sim", "--headless", "--keys", KEYS).stdout
    assert out == _checkout("sim", "--headless", "--keys", KEYS).stdout
    result = json.loads(out)
    assert result["state"]["turn"] == 3 and result["journal"].count("\n") >= 3


def test_replay_a_file_and_stdin(pkg):
    shutil.copyfile(GAME, os.path.join(pkg.work, "game.txt"))
    by_file = pkg.matchbox("replay", "game.txt").stdout
    assert by_file.startswith("game.txt: 3 players, 12 actions\n")
    with open(GAME) as f:
        by_stdin = pkg.matchbox("replay", "-", stdin=f.read()).stdout
    assert by_stdin == by_file.replace("game.txt:", "-:", 1)


def test_ref(pkg):
    assert pkg.matchbox("ref", "3").stdout == _checkout("ref", "3").stdout


def test_card_in_japanese_and_german_with_its_fonts(pkg):
    """The Japanese font comes with the package's dependencies (no system font): every
    character of the card is in a font embedded in its PDF, and its pages render."""
    from test_card import embedded_cmaps
    from host_tools.commands import card
    assert pkg.matchbox("card", "--lang", "ja", "-o", "card.pdf").stdout == "card.pdf\n"
    pkg.matchbox("card", "--lang", "de", "--paper", "letter", "-o", "karte.pdf")
    for name, lang in (("card.pdf", "ja"), ("karte.pdf", "de")):
        with open(os.path.join(pkg.work, name), "rb") as f:
            pdf = f.read()
        covered = embedded_cmaps(pdf)
        assert not [ch for ch in "".join(card.texts(card.content(lang)))
                    if ch.strip() and ord(ch) not in covered], name
        if shutil.which("pdftoppm"):
            _run(["pdftoppm", "-r", "20", "-png", os.path.join(pkg.work, name),
                  os.path.join(pkg.work, lang)])
            assert os.path.isfile(os.path.join(pkg.work, lang + "-2.png"))
        if lang == "ja":
            assert b"IPAexGothic" in pdf


def test_report(pkg):
    shutil.copyfile(GAME, os.path.join(pkg.work, "report-game.txt"))
    pkg.matchbox("report", "report-game.txt", "-o", "report.html")
    with open(os.path.join(pkg.work, "report.html")) as f:
        page = f.read()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page


def test_web_build_only(pkg):
    if not os.path.isdir(os.path.join(pkg.cache, "matchbox")):
        pytest.skip("needs the WebAssembly build to fill the cache with: make web-deps")
    cached = _tree(pkg.cache)
    out = pkg.matchbox("web", "--build-only", "site").stdout
    assert "getting" not in out and _tree(pkg.cache) == cached   # the cache's, not fetched
    site = os.path.join(pkg.work, "site")
    for name in resources.WASM_FILES:
        with open(os.path.join(site, name), "rb") as a, open(os.path.join(resources.WASM, name), "rb") as b:
            assert a.read() == b.read(), name
    with open(os.path.join(site, "index.html")) as f:
        assert 'aria-label="display 4"' in f.read()
    with open(os.path.join(site, "files.json")) as f:
        assert "py/lib/box/app.py" in json.load(f)


def test_flash_dry_run(pkg):
    out = pkg.matchbox("flash", "--dry-run", "--port", "/dev/null-no-such-board").stdout
    assert "would copy" in out and "main.py" in out and "lib/tycoon/game.mpy" in out


def test_uf2_adds_the_box_to_a_downloaded_micropython(pkg):
    from uf2_helpers import micropython_uf2
    with open(os.path.join(pkg.work, "RPI_PICO-v1.28.0.uf2"), "wb") as f:
        f.write(micropython_uf2())
    out = pkg.matchbox("uf2", "--micropython", "RPI_PICO-v1.28.0.uf2", "-o", "box.uf2").stdout
    assert "wrote box.uf2" in out and "BOOTSEL" in out and "games included" in out
    mine = _checkout("uf2", "--micropython", os.path.join(pkg.work, "RPI_PICO-v1.28.0.uf2"),
                     "-o", os.path.join(pkg.work, "checkout.uf2")).stdout
    with open(os.path.join(pkg.work, "box.uf2"), "rb") as a, \
            open(os.path.join(pkg.work, "checkout.uf2"), "rb") as b:
        assert a.read() == b.read()   # the same box on the same filesystem
    assert mine.splitlines()[1] == out.splitlines()[1]
    missing = pkg.matchbox("uf2", status=2)
    assert "micropython.org/download/RPI_PICO/" in missing.stderr


def test_wiring_to_a_file(pkg):
    pkg.matchbox("wiring", "-o", "wiring.svg")
    with open(os.path.join(pkg.work, "wiring.svg")) as a, \
            open(os.path.join(resources.HARDWARE, "wiring.svg")) as b:
        assert a.read() == b.read()
    pkg.matchbox("wiring", "--check")


def test_enclosure_without_its_extra_says_what_to_install_and_labels_work(pkg):
    """The package without the CAD extra: `enclosure` is one line and exit 2, the sticker
    sheet (no CAD) is made from the package's own words and pin map."""
    missing = pkg.matchbox("enclosure", "-o", "case", status=2)
    assert "pipx install --force '.[enclosure]'" in missing.stderr
    assert not os.path.exists(os.path.join(pkg.work, "case"))
    assert pkg.matchbox("labels", "--lang", "ja", "-o", "labels.pdf").stdout == "labels.pdf\n"


def test_watch_a_file_of_state_lines(pkg):
    stream = pkg.matchbox("sim", "--headless", "--stream", "--keys", KEYS).stdout
    with open(os.path.join(pkg.work, "states.txt"), "w") as f:
        f.write(stream)
    out = pkg.matchbox("watch", "--file", "states.txt", "--plain").stdout
    assert out.startswith("watching: 3 players, seat 1 to act\n")
    assert "seat 1 played 1 x 9 (1 stick)\n" in out and "seat 2 passed\n" in out


def test_hall_serves_a_box_of_the_installed_package(pkg):
    """enrol, serve (the embedded broker), sim --uplink: the page (package data), the displays
    (the firmware's screens from the package's copy) and the record, all from the wheel."""
    import urllib.request
    from hall_helpers import free_port
    http, mqtt = free_port(), free_port()
    url = pkg.matchbox("hall", "enrol", "hall", "t1",
                       "--mqtt-port", str(mqtt)).stdout.splitlines()[0]
    serve = subprocess.Popen(["matchbox", "hall", "serve", "hall", "--port", str(http),
                              "--mqtt-port", str(mqtt), "--audience-port", "0"],
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, cwd=pkg.work, env=pkg.env())
    try:
        assert serve.stdout.readline().startswith(b"the hall is at")
        pkg.matchbox("sim", "--headless", "--flash", "box", "--uplink", url, "--keys", KEYS)

        def get(path):
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (http, path), timeout=30) as r:
                return r.read()
        with open(os.path.join(pkg.work, "box", "games", "current.txt"), "rb") as f:
            assert get("/tables/t1.txt") == f.read()
        assert b"EventSource" in get("/") and get("/tables/t1.svg").startswith(b"<svg")
        from host_tools.hall import nats
        if nats.find():   # the audience broker, and the page's MQTT client from the cache
            assert json.loads(get("/audience.json"))["path"] == "/mqtt"
            assert b"mqtt" in get("/mqtt.min.js")[:4096]
    finally:
        serve.terminate()
        serve.communicate(timeout=30)


def test_an_event_of_the_installed_package(pkg):
    """event seat (an affine plane), create, add, next and print: the sheets in Japanese with
    the package's fonts."""
    import json
    rounds = json.loads(pkg.matchbox("event", "seat", "--players", "9", "--rounds", "4",
                                     "--table-size", "3", "--json").stdout)["rounds"]
    pairs = [tuple(sorted(p)) for tables in rounds for t in tables
             for p in [(a, b) for a in t for b in t if a < b]]
    assert len(pairs) == len(set(pairs)) == 36
    pkg.matchbox("event", "create", "cup", "--rounds", "2", "--table-size", "4", "--boxes", "t1,t2")
    pkg.matchbox("event", "add", "cup", "Ann", "Ben", "Cid", "Dan", "山田", "Zoë", "Eve", "Fay")
    pkg.matchbox("event", "next", "cup")
    out = pkg.matchbox("event", "print", "cup", "--lang", "ja").stdout
    assert out.strip() == "./round-1-ja.pdf"
    with open(os.path.join(pkg.work, "round-1-ja.pdf"), "rb") as f:
        assert f.read(5) == b"%PDF-"


def test_nothing_was_written_into_the_package(pkg):
    """Last here: after every command above, the installed package is what pip put there."""
    assert _tree(pkg.site) == pkg.before

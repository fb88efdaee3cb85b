"""`matchbox web` without a browser: what the site holds, what the server sends, its errors."""
import base64
import errno
import hashlib
import io
import json
import os
import tarfile
import threading
import urllib.error
import urllib.request

import pytest

from host_tools import cli, wasm_cache
from host_tools.commands import web
from host_tools.resources import CHECKOUT as ROOT

HAVE_WASM = all(os.path.isfile(os.path.join(web.WASM, n)) for n in web.WASM_FILES)
needs_wasm = pytest.mark.skipif(not HAVE_WASM, reason="needs the WebAssembly build: make web-deps")


def tree(folder):
    out = []
    for here, _dirs, files in os.walk(folder):
        out += [os.path.relpath(os.path.join(here, f), folder).replace(os.sep, "/") for f in files]
    return sorted(out)


@needs_wasm
def test_build_only_writes_the_firmware_the_board_and_the_page(tmp_path, capsys):
    dest = str(tmp_path / "site")
    assert cli.main(["web", "--build-only", dest]) == 0
    files = tree(dest)
    assert "wrote %d files" % len(files) in capsys.readouterr().out
    firmware = sorted("py/lib/%s/%s" % (p, n) for p in ("box", "tycoon")
                      for n in os.listdir(os.path.join(ROOT, "firmware", "lib", p)) if n.endswith(".py"))
    assert set(firmware) <= set(files)
    for name in firmware:   # the firmware's own files, byte for byte
        with open(os.path.join(ROOT, "firmware", "lib", name[len("py/lib/"):]), "rb") as f:
            with open(os.path.join(dest, name), "rb") as g:
                assert f.read() == g.read(), name
    with open(os.path.join(dest, "files.json")) as f:
        listed = json.load(f)
    assert sorted(listed) == [n for n in files if n.startswith("py/")]
    assert {"index.html", "page.css", "page.js", "micropython.mjs", "micropython.wasm"} <= set(files)
    with open(os.path.join(dest, "index.html")) as f:
        html = f.read()
    assert "{{" not in html
    # every segment of the four displays has its id, drawn by display_svg
    for i in range(4):
        for j in range(4):
            for s in "abcdefgp":
                assert 'id="d%d-%d%s"' % (i, j, s) in html
        assert 'id="d%d-c1"' % i in html and 'id="d%d-glow"' % i in html
    assert html.count('data-key="') == 16 + 8


@needs_wasm
def test_the_server_sends_the_built_files_with_their_types(tmp_path):
    dest = str(tmp_path / "site")
    web.build(dest)
    httpd = web.server(dest, 0)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % httpd.server_address[1]
    try:
        for name, kind in (("micropython.mjs", "text/javascript"), ("micropython.wasm", "application/wasm"),
                           ("page.js", "text/javascript"), ("py/lib/box/app.py", "text/plain")):
            with urllib.request.urlopen(base + name) as r:
                assert r.headers["Content-Type"].startswith(kind)
                with open(os.path.join(dest, name), "rb") as f:
                    assert r.read() == f.read()
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(base + "host_tools/commands/web.py")
    finally:
        httpd.shutdown()
        httpd.server_close()


# --- the WebAssembly build got by name at first use (host_tools.wasm_cache), offline ----------

def tarball(members):
    """A gzipped tarball of (name, bytes) files as npm packs one, and (name, None, tarfile
    type) links or devices."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data, *kind in members:
            info = tarfile.TarInfo(name)
            if kind:
                info.type, info.linkname = kind[0], "/etc/passwd"
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def package_members(prefix="package/"):
    return [(prefix + "micropython.mjs", b"export default 'mjs';\n"),
            (prefix + "micropython.wasm", b"\0asm\1\0\0\0" + bytes(range(256)) * 8),
            (prefix + "package.json", b'{"name": "@micropython/micropython-webassembly"}'),
            (prefix + "README.md", b"not taken\n")]


@pytest.fixture
def offline(tmp_path, monkeypatch):
    """No node_modules, the cache in tmp_path/cache, npm not on PATH; returns
    serve(tarball bytes, pinned=True) -> the URL MATCHBOX_WASM_URL now names (a lockfile
    pinning that tarball's integrity when pinned, else the shipped one)."""
    monkeypatch.setattr(web, "WASM", str(tmp_path / "no-node-modules"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))

    def serve(data, pinned=True):
        path = tmp_path / "pkg.tgz"
        path.write_bytes(data)
        url = path.as_uri()
        monkeypatch.setenv(wasm_cache.URL_VARIABLE, url)
        if pinned:
            with open(wasm_cache.LOCK) as f:
                lock = json.load(f)
            entry = lock["packages"]["node_modules/" + wasm_cache.NAME]
            digest = hashlib.sha512(data).digest()
            entry["integrity"] = "sha512-" + base64.b64encode(digest).decode()
            (tmp_path / "package-lock.json").write_text(json.dumps(lock))
            monkeypatch.setattr(wasm_cache, "LOCK", str(tmp_path / "package-lock.json"))
        return url
    return serve


def cache(tmp_path):
    root = tmp_path / "cache" / "matchbox"
    return sorted(os.listdir(root)) if root.is_dir() else []


def test_first_use_gets_the_pinned_package_into_the_cache_then_uses_it(tmp_path, offline, capsys):
    members = package_members()
    offline(tarball(members))
    site = tmp_path / "site"
    assert cli.main(["web", "--build-only", str(site)]) == 0
    out = capsys.readouterr().out
    version = wasm_cache.pinned()[0]
    assert "getting the MicroPython WebAssembly build" in out and "wrote " in out
    assert cache(tmp_path) == ["wasm-" + version]
    kept = tmp_path / "cache" / "matchbox" / ("wasm-" + version)
    assert sorted(os.listdir(kept)) == sorted(wasm_cache.FILES)   # not the README
    for name, data in members[:3]:
        assert (kept / name.split("/")[1]).read_bytes() == data
    assert (site / "micropython.wasm").read_bytes() == members[1][1]
    # the second time from the cache, with nothing to download
    (tmp_path / "pkg.tgz").unlink()
    assert cli.main(["web", "--build-only", str(tmp_path / "again")]) == 0
    assert "getting" not in capsys.readouterr().out
    assert (tmp_path / "again" / "micropython.mjs").read_bytes() == members[0][1]


def test_download_over_http_from_localhost(tmp_path, offline, monkeypatch):
    import functools
    import http.server
    offline(tarball(package_members()))
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    handler = functools.partial(Quiet, directory=str(tmp_path))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        monkeypatch.setenv(wasm_cache.URL_VARIABLE,
                           "http://127.0.0.1:%d/pkg.tgz" % httpd.server_address[1])
        got = wasm_cache.folder(None, say=lambda *a, **k: None)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert cache(tmp_path) == [os.path.basename(got)]
    assert sorted(os.listdir(got)) == sorted(wasm_cache.FILES)


def refused(tmp_path, capsys, *words):
    site = tmp_path / "site"
    assert cli.main(["web", "--build-only", str(site)]) == 2
    captured = capsys.readouterr()
    line = captured.err.strip()
    assert "\n" not in line and "Traceback" not in line, line
    assert line.startswith("matchbox web: the MicroPython WebAssembly build (npm "
                           "@micropython/micropython-webassembly-pyscript): "), line
    for word in words:
        assert word in line, (word, line)
    assert cache(tmp_path) == [] and not site.exists()   # nothing kept, nothing written


def test_a_tarball_that_is_not_the_pinned_one_is_refused_before_it_is_opened(tmp_path, offline,
                                                                               capsys):
    url = offline(tarball(package_members()), pinned=False)   # the shipped lockfile's hash
    refused(tmp_path, capsys, url, "does not match the lockfile's integrity", "nothing kept")
    # checked before the tarball is opened: its members are never looked at
    offline(tarball([("../escaped.txt", b"x")]) + b"garbage", pinned=False)
    refused(tmp_path, capsys, "does not match the lockfile's integrity")


@pytest.mark.parametrize("evil,why", [
    ("package/../../escaped.txt", "outside its folder"),
    ("../escaped.txt", "outside its folder"),
    ("/tmp/escaped.txt", "outside its folder"),
    (("package/micropython.wasm", None, tarfile.SYMTYPE), "not a regular file"),
    (("package/dev", None, tarfile.CHRTYPE), "not a regular file"),
])
def test_a_member_that_could_land_elsewhere_refuses_the_tarball(tmp_path, offline, capsys, evil,
                                                                why):
    members = package_members()
    members.insert(1, evil if isinstance(evil, tuple) else (evil, b"escaped\n"))
    offline(tarball(members))
    refused(tmp_path, capsys, why, "refused")
    assert not (tmp_path / "escaped.txt").exists() and not os.path.exists("/tmp/escaped.txt")


def test_a_tarball_without_the_build_is_refused(tmp_path, offline, capsys):
    offline(tarball(package_members()[1:]))
    refused(tmp_path, capsys, "has no package/micropython.mjs")
    offline(b"not a tarball at all")
    refused(tmp_path, capsys, "cannot be read")


def test_no_network_is_one_line(tmp_path, offline, capsys, monkeypatch):
    import socket
    with socket.socket() as s:   # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        url = "http://127.0.0.1:%d/pkg.tgz" % s.getsockname()[1]
    monkeypatch.setenv(wasm_cache.URL_VARIABLE, url)
    refused(tmp_path, capsys, "cannot download " + url, "refused")


def test_a_full_disk_leaves_nothing_half_written(tmp_path, offline, capsys, monkeypatch):
    offline(tarball(package_members()))

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(wasm_cache.os, "fsync", full)
    refused(tmp_path, capsys, "cannot write the cache folder", "no space left on device")


def test_a_cache_that_is_a_file_is_one_line(tmp_path, offline, capsys, monkeypatch):
    offline(tarball(package_members()))
    (tmp_path / "cache").write_text("a file\n")
    refused(tmp_path, capsys, "cannot write the cache folder", "Not a directory")


def fake_npm(tmp_path, script):
    bin_dir = tmp_path / "no-bin"
    bin_dir.mkdir(exist_ok=True)
    npm = bin_dir / "npm"
    npm.write_text("#!/bin/sh\n" + script)
    npm.chmod(0o755)


def test_npm_when_it_is_here_and_its_failure_in_one_line(tmp_path, offline, capsys, monkeypatch):
    monkeypatch.delenv(wasm_cache.URL_VARIABLE, raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin") + os.pathsep + "/usr/bin:/bin")
    fake_npm(tmp_path, 'echo "npm error code ENOTFOUND" >&2\necho "npm error network down" >&2\n'
                       "exit 1\n")
    refused(tmp_path, capsys, "`npm ci` failed (exit 1): npm error network down")
    # an npm that installs (as `npm ci` does, from the shipped package.json and lockfile)
    fake_npm(tmp_path, 'test -f package-lock.json && test -f package.json || exit 3\n'
                       'd=node_modules/@micropython/micropython-webassembly-pyscript\n'
                       'mkdir -p $d && for f in micropython.mjs micropython.wasm package.json; '
                       'do echo "npm $f" > $d/$f; done\n')
    assert cli.main(["web", "--build-only", str(tmp_path / "site")]) == 0
    assert (tmp_path / "site" / "micropython.mjs").read_text() == "npm micropython.mjs\n"
    assert cache(tmp_path) == ["wasm-" + wasm_cache.pinned()[0]]


def test_the_hall_pages_mqtt_client_is_got_by_name_and_checked(tmp_path, monkeypatch):
    """The hall page's npm part (wasm_cache.HALL_MQTT) the same way, without npm or a
    checkout's node_modules: the lockfile's tarball, its dist/mqtt.min.js kept in the cache;
    a tarball that is not the pinned one is refused and nothing is kept."""
    part = wasm_cache.Part("mqtt", ("dist/mqtt.min.js", "package.json"), str(tmp_path / "npm"),
                           "MATCHBOX_TEST_MQTT_URL", "the MQTT client", "mqtt-")
    members = [("package/dist/mqtt.min.js", b"var mqtt = {};\n" * 100),
               ("package/package.json", b'{"name": "mqtt"}'),
               ("package/dist/mqtt.js", b"not taken\n")]
    data = tarball(members)
    (tmp_path / "pkg.tgz").write_bytes(data)
    (tmp_path / "npm").mkdir()
    lock = json.load(open(wasm_cache.HALL_MQTT.lock))
    lock["packages"]["node_modules/mqtt"]["integrity"] = \
        "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    (tmp_path / "npm" / "package-lock.json").write_text(json.dumps(lock))
    monkeypatch.setenv("MATCHBOX_TEST_MQTT_URL", (tmp_path / "pkg.tgz").as_uri())
    root = str(tmp_path / "cache")
    paths = part.paths(root=root, npm=None, say=lambda *a, **k: None)
    assert sorted(paths) == ["mqtt.min.js", "package.json"]
    assert open(paths["mqtt.min.js"], "rb").read() == members[0][1]
    (tmp_path / "pkg.tgz").write_bytes(tarball(members[:2]))   # not the pinned tarball
    with pytest.raises(wasm_cache.WasmError, match="does not match the lockfile's integrity"):
        wasm_cache.folder(None, part=part, root=str(tmp_path / "other"), npm=None,
                          say=lambda *a, **k: None)
    assert not os.path.exists(tmp_path / "other" / ("mqtt-" + lock["packages"][
        "node_modules/mqtt"]["version"]))

"""`matchbox web` as a server that holds up: 1100 idle connections (more than the open files
the usual limit of 1024 allows it) do not stop it from answering, it lists no folder, and
SIGTERM or Ctrl-C stop it with one line and no temporary folder left behind. Its server and the
hall's page server (host_tools.web_server, in this process) under hostile clients: slow ones
do not shut out a request, 6 MB of headers get 431, a NUL in the path 400, and clients that go
away leave no traceback. (`make soak-hall-attacks` runs the larger versions.)"""
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from hall_helpers import drip, http_status, slow_clients
from host_tools import web_server
from host_tools.commands import web

IDLE = 1100   # more connections than the 1024 files the server may open

needs_wasm = pytest.mark.skipif(
    not all(os.path.isfile(os.path.join(web.WASM, n)) for n in web.WASM_FILES),
    reason="needs the WebAssembly build: make web-deps")


def open_files(limit):
    def set_limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
    return set_limit


def serve(tmp_path, files=1024):
    """`matchbox web --no-open --port 0` with at most `files` open files; (process, base URL,
    its temporary folder's parent)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "host_tools.cli", "web", "--no-open", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, TMPDIR=str(tmp)), preexec_fn=open_files(files))
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert m, line + proc.stderr.read()
    return proc, m.group(0), tmp


def get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.status, answer.read()


@needs_wasm
def test_a_thousand_idle_connections_do_not_stop_it(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < IDLE + 200:
        pytest.skip("this process may open only %d files" % hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, IDLE + 200), hard))
    proc, base, tmp = serve(tmp_path)
    idle = []
    try:
        port = int(base.rsplit(":", 1)[1].strip("/"))
        for _ in range(IDLE):
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        started = time.monotonic()
        status, page = get(base)
        assert status == 200 and b"<html" in page.lower()
        assert time.monotonic() - started < 5
        with pytest.raises(urllib.error.HTTPError) as listing:   # a folder is not listed
            get(base + "py/")
        assert listing.value.code == 404
        assert get(base + "files.json")[0] == 200
    finally:
        for s in idle:
            s.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143 and err.strip() == "matchbox web: stopped: terminated (SIGTERM)"
    assert os.listdir(tmp) == []


@needs_wasm
def test_ctrl_c_stops_it_and_removes_its_folder(tmp_path):
    proc, base, tmp = serve(tmp_path)
    assert get(base)[0] == 200
    assert len(os.listdir(tmp)) == 1      # the site, while it serves
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and err.strip() == "matchbox web: stopped"
    assert os.listdir(tmp) == []


@needs_wasm
def test_a_silent_connection_is_closed_after_the_idle_time(tmp_path, monkeypatch):
    monkeypatch.setattr(web_server.Handler, "request_s", 0.5)
    site = tmp_path / "site"
    web.build(str(site))
    httpd = web.server(str(site), 0)
    import threading
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with socket.create_connection(("127.0.0.1", httpd.server_address[1]), timeout=5) as s:
            deadline = time.monotonic() + 5      # until the server has taken it (not a pause)
            while httpd.open_connections() != 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert httpd.open_connections() == 1
            assert s.recv(1) == b""            # closed by the server, having said nothing
        deadline = time.monotonic() + 5
        while httpd.open_connections() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert httpd.open_connections() == 0
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(params=["web", "hall"])
def httpd(tmp_path, request):
    """web_server.Server in this process: of a folder (as `matchbox web`) or the hall's."""
    import functools
    import threading
    from host_tools.hall import records, site
    (tmp_path / "index.html").write_bytes(b"<html>" + b"x" * (4 << 20))
    if request.param == "web":
        server = web_server.Server(("127.0.0.1", 0), functools.partial(
            web_server.Handler, directory=str(tmp_path)))
    else:
        server = site.server(site.Site(records.Tables(str(tmp_path / "hall"))))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.port = server.server_address[1]
    yield server
    server.shutdown()
    server.server_close()


def test_slow_clients_do_not_shut_out_a_request(httpd, monkeypatch):
    """20 clients sending their headers a line every 0.2 s, with 16 connections at most: a
    normal request is answered at once, and each slow one is closed when its request has not
    arrived whole within the time allowed (total, not per line)."""
    monkeypatch.setattr(web_server.Handler, "request_s", 1.5)
    httpd.max_connections = 16
    slow = slow_clients(httpd.port, 20)
    began = time.monotonic()
    closed = set()
    answered = None
    while time.monotonic() - began < 3.5 and len(closed) < len(slow):
        drip(slow, closed)
        if answered is None and time.monotonic() - began > 0.5:
            asked = time.monotonic()
            assert http_status(httpd.port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").startswith(
                b"HTTP/1.0 200")
            answered = time.monotonic() - asked
        time.sleep(0.2)
    assert answered is not None and answered < 1, answered
    for s in slow:   # closed by the server: by the bound, or after 1.5 s without a request
        s.settimeout(2)
        try:
            assert s.recv(1) == b""
        except ConnectionError:
            pass
        s.close()
    assert time.monotonic() - began < 6


def test_six_megabytes_of_headers_get_431(httpd):
    header = b"X-Big: " + b"a" * 60000 + b"\r\n"
    assert http_status(httpd.port, b"GET / HTTP/1.1\r\n" + header * 100 + b"\r\n") \
        == b"HTTP/1.0 431 Request header fields too large"
    assert http_status(httpd.port, b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n").startswith(
        b"HTTP/1.0 431")
    assert http_status(httpd.port, b"GET / HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.0 200")


def test_malformed_paths_get_400(httpd):
    for path in (b"/x%00.txt", b"/%00", b"/a%0a.txt", b"/%ff%fe.txt", b"x.txt",
                 b"/tables/%00.txt"):
        assert http_status(httpd.port, b"GET " + path + b" HTTP/1.1\r\n\r\n").startswith(
            b"HTTP/1.0 400"), path
    assert http_status(httpd.port, b"GET /nothing-here.txt HTTP/1.1\r\n\r\n").startswith(
        b"HTTP/1.0 404")


def test_clients_going_away_leave_no_traceback(httpd, capfd):
    """30 clients asking for a 4 MB page and closing at once (a reset): nothing on stderr."""
    import struct
    for _ in range(30):
        s = socket.create_connection(("127.0.0.1", httpd.port), timeout=5)
        s.sendall(b"GET / HTTP/1.1\r\n\r\n")
        s.recv(1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    time.sleep(0.5)
    assert http_status(httpd.port, b"GET / HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.0 200")
    err = capfd.readouterr().err
    assert err == "", err

"""TLS on the room's network (docs/hall-reference.md#tls): the hall's own CA and certificates
(host_tools.hall.certs), TLS wherever the hall is served beyond 127.0.0.1, the brokers (the
embedded amqtt and Debian's Mosquitto) and the page speaking only TLS, and the box's own MQTT
client (box.mqtt_link under the MicroPython unix port) checking the broker against the CA its
settings carry: a game delivered over TLS, a wrong certificate refused with one line on the
box's USB serial while its journal waits, and clients without TLS refused."""
import base64
import datetime
import json
import os
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from hall_helpers import (CLI, MOSQUITTO, NO_MOSQUITTO, Mosquitto, all_delivered, box_games,
                          connect_packet, enrol, free_port, game_ops, header_lines, key_in,
                          linked_box, served, stores_and_acks, until)
from host_tools.hall import certs, protocol

pytestmark = pytest.mark.timeout(180)
SETUP = (3, 1, "none", 5, 6, [4, 3, 4])
A_PICO_WAKES = datetime.datetime(2021, 1, 1, tzinfo=datetime.timezone.utc)   # its clock


def x509(path):
    from cryptography import x509 as x
    with open(path, "rb") as f:
        return x.load_pem_x509_certificate(f.read())


def sans(cert):
    from cryptography import x509 as x
    return set(map(str, cert.extensions.get_extension_for_class(
        x.SubjectAlternativeName).value))


def test_the_hall_makes_its_ca_and_certificates_private_keys_0600(tmp_path):
    hall = str(tmp_path / "hall")
    named = certs.ensure(hall, "192.0.2.7")
    assert named == ["localhost", "127.0.0.1", "::1", "192.0.2.7"]
    modes = {name: os.stat(os.path.join(hall, "tls", name)).st_mode & 0o777
             for name in os.listdir(os.path.join(hall, "tls"))}
    assert modes == {"ca.pem": 0o644, "ca.key": 0o600, "box.pem": 0o644, "box.key": 0o600,
                     "web.pem": 0o644, "web.key": 0o600}
    ca, box, web = (x509(os.path.join(hall, "tls", n)) for n in ("ca.pem", "box.pem", "web.pem"))
    for cert in (box, web):
        cert.verify_directly_issued_by(ca)
        assert "192.0.2.7" in str(sans(cert)) and "localhost" in str(sans(cert))
    # a Pico's clock reads 2021-01-01 at power-up: its CA and certificate are valid then
    assert ca.not_valid_before_utc <= A_PICO_WAKES <= ca.not_valid_after_utc
    assert box.not_valid_before_utc <= A_PICO_WAKES
    # a browser's: valid from now, for at most 825 days
    now = datetime.datetime.now(datetime.timezone.utc)
    assert web.not_valid_before_utc <= now <= web.not_valid_after_utc
    assert web.not_valid_after_utc - web.not_valid_before_utc <= datetime.timedelta(days=825)


def test_certificates_made_again_only_when_the_served_host_changes(tmp_path):
    hall = str(tmp_path / "hall")
    certs.ensure(hall, "192.0.2.7")
    tls = tmp_path / "hall" / "tls"
    before = {p.name: p.read_bytes() for p in tls.iterdir()}
    certs.ensure(hall, "192.0.2.7")
    assert {p.name: p.read_bytes() for p in tls.iterdir()} == before
    certs.ensure(hall, "hall.example")
    after = {p.name: p.read_bytes() for p in tls.iterdir()}
    assert after["ca.pem"] == before["ca.pem"] and after["ca.key"] == before["ca.key"]
    assert after["box.pem"] != before["box.pem"] and after["web.pem"] != before["web.pem"]
    assert "<DNSName(value='hall.example')>" in sans(x509(str(tls / "box.pem")))
    assert certs.served_names(hall)[:4] == ["localhost", "hall.example", "127.0.0.1", "::1"]
    (tls / "ca.key").unlink()   # a CA without its key: a new CA, and certificates signed by it
    certs.ensure(hall, "hall.example")
    x509(str(tls / "box.pem")).verify_directly_issued_by(x509(str(tls / "ca.pem")))
    (tls / "ca.pem").write_bytes(b"not a certificate")
    with pytest.raises(certs.CertError) as exc:
        certs.ensure(hall, "hall.example")
    assert "ca.pem: not a readable PEM certificate" in str(exc.value)


def test_tls_everywhere_but_on_127_0_0_1():
    assert [certs.wanted(h) for h in ("127.0.0.1", "localhost", "::1", "127.0.0.2")] == \
        [False] * 4
    assert all(certs.wanted(h) for h in ("0.0.0.0", "::", "192.168.4.2", "hall.local"))
    assert certs.wanted("127.0.0.1", forced=True)


def run(*argv, **kw):
    return subprocess.run(CLI + list(argv), capture_output=True, text=True, timeout=60, **kw)


def test_enrol_for_the_room_writes_mqtts_and_the_ca(tmp_path):
    hall = str(tmp_path / "hall")
    out = run("hall", "enrol", hall, "t1", "--host", "192.0.2.7")
    assert out.returncode == 0, out.stderr
    url = out.stdout.splitlines()[0]
    assert url.startswith("mqtts://t1:") and url.endswith("@192.0.2.7:8883")
    with open(os.path.join(hall, "boxes", "t1", "hall.json")) as f:
        settings = json.load(f)
    assert base64.b64decode(settings["ca"]) == certs.ca_der(hall)
    assert settings["host"] == "192.0.2.7" and settings["port"] == 8883
    assert not os.path.exists(os.path.join(hall, "tls", "box.pem"))   # serve makes those
    certs.ensure(hall, "192.0.2.7")
    out = run("hall", "enrol", hall, "t2", "--host", "192.0.2.9")
    assert out.returncode == 0 and out.stderr.count("\n") == 1
    assert "the hall's certificate does not name 192.0.2.9" in out.stderr
    out = run("hall", "enrol", hall, "t3")                       # this computer only: plain
    assert out.stdout.startswith("mqtt://t3:") and out.stdout.splitlines()[0].endswith("@127.0.0.1:1883")
    with open(os.path.join(hall, "boxes", "t3", "hall.json")) as f:
        assert "ca" not in json.load(f)


def test_plain_mqtt_beyond_127_0_0_1_is_refused_in_one_line(tmp_path):
    for argv, what in (
            (("hall", "serve", str(tmp_path / "h"), "--broker", "mqtt://192.0.2.7:1883"),
             "matchbox hall: --broker: plain MQTT only to this computer (127.0.0.1)"),
            (("hall", "serve", str(tmp_path / "h"), "--broker", "mqtts://127.0.0.1:8883"),
             "matchbox hall: --broker: mqtts:// is checked against the hall's CA"),
            (("sim", "--headless", "--flash", str(tmp_path / "f"), "--uplink",
              "mqtt://t1:pw@192.0.2.7:1883"), "matchbox sim: --uplink: plain MQTT only to"),
            (("sim", "--headless", "--flash", str(tmp_path / "f"), "--uplink",
              "mqtts://t1:pw@192.0.2.7"), "matchbox sim: --uplink: mqtts:// is checked against"),
            (("uplink", "mqtt://t1:pw@192.0.2.7:1883"), "matchbox uplink: URL: plain MQTT only"),
            (("flash", "--hall-settings", str(tmp_path / "bad.json")),
             "matchbox flash: --hall-settings: %s: ca is not a certificate" % (tmp_path / "bad.json"))):
        (tmp_path / "bad.json").write_text(json.dumps(
            {"host": "h", "box": "t1", "password": "p", "ca": "TUlJQg=="}))
        out = run(*argv)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, (argv, out.stderr)
        assert out.stderr.startswith(what), (argv, out.stderr)


def test_served_to_the_room_tls_is_the_default(tmp_path):
    """`serve --host ADDRESS` (an address of this computer that is not loopback): the broker
    speaks MQTT over TLS on 8883's place and the page HTTPS, without being asked."""
    address = certs.address(certs.names("0.0.0.0"))
    if address is None or ":" in address:
        pytest.skip("this computer has no IPv4 address beyond loopback")
    folder, http, mqtt = str(tmp_path / "hall"), free_port(), free_port()
    argv = CLI + ["hall", "serve", folder, "--host", address, "--port", str(http),
                  "--mqtt-port", str(mqtt), "--audience-port", "0"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        first, second = proc.stdout.readline(), proc.stdout.readline()
        assert first.startswith("the hall is at https://%s:%d/ (broker mqtts://%s:%d;"
                                % (address, http, address, mqtt)), (first, proc.stderr)
        assert second.startswith("TLS: the hall's certificates name localhost, 127.0.0.1, ::1, "
                                 "%s; its CA" % address) and "SHA-256 " in second
        ctx = certs.client_context(folder)
        with urllib.request.urlopen("https://%s:%d/tables.json" % (address, http),
                                    context=ctx, timeout=10) as r:
            assert json.loads(r.read()) == []
        with socket.create_connection((address, mqtt), 10) as raw:
            with ctx.wrap_socket(raw, server_hostname=address) as s:
                assert s.version() in ("TLSv1.2", "TLSv1.3")
    finally:
        proc.terminate()
        proc.wait(15)


@pytest.fixture(params=["amqtt", "mosquitto"])
def tls_hall(request, tmp_path):
    with served(tmp_path, request.param, boxes=("t1",), tls=True) as h:
        h.kind = request.param
        yield h


def test_a_box_on_the_unix_port_sends_a_game_over_tls(tls_hall, tmp_path):
    """`matchbox sim --uplink mqtts://... --uplink-ca` (the firmware's own link in MicroPython's
    unix port, its TLS mbedTLS): the game reaches the hall whole; the page over HTTPS shows
    it; the hall's own client and a box's reach the broker over TLS."""
    assert tls_hall.urls["t1"].startswith("mqtts://")
    flash = str(tmp_path / "flash")
    ops, game = game_ops(3, SETUP, 60)
    out = subprocess.run(CLI + ["sim", "--headless", "--flash", flash, "--uplink",
                                tls_hall.urls["t1"], "--uplink-ca", certs.ca_file(tls_hall.folder),
                                "--keys", " ".join(k for op in ops for k in op)],
                         capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    [(game_id, data)] = box_games(flash)
    assert tls_hall.get("/tables/t1.txt") == data          # over HTTPS, checked against the CA
    assert tls_hall.tables()["t1"]["state"] == json.loads(out.stdout)["state"]
    with open(os.path.join(flash, "hall.json")) as f:
        assert base64.b64decode(json.load(f)["ca"]) == certs.ca_der(tls_hall.folder)


def test_a_wrong_certificate_is_refused_in_one_line_and_nothing_is_lost(tls_hall, tmp_path):
    """A box carrying another hall's CA refuses the broker: one line on its USB serial each
    attempt, the connection dropped and tried again after its back-off, the journal kept;
    given this hall's CA it delivers every line."""
    other = str(tmp_path / "other")
    url = tls_hall.urls["t1"]
    flash = str(tmp_path / "flash")
    ops, _ = game_ops(5, SETUP, 10)
    with linked_box(flash, url, certs.ca_der(other)) as box:
        box.boot()
        for op in ops:
            key_in(box, op)
        assert until(lambda: box.link["dropped"] >= 2 or box.advance(50), 30), box.link
        refusals = [line for line in box.emitted if line.startswith('{"hall"')]
        assert len(refusals) == box.link["dropped"] >= 2, box.emitted
        assert json.loads(refusals[0]) == {"hall": "ValueError: The certificate is not "
                                                   "correctly signed by the trusted CA"}
        assert not box.link["connected"] and box.link["acked"] is None
        journal = box_games(flash)
    assert journal and sum(d.count(b"\n") for _, d in journal) > 6
    assert tls_hall.tables()["t1"]["seq"] == 0
    with linked_box(flash, url, certs.ca_der(tls_hall.folder)) as box:   # the right CA
        box.boot()
        assert all_delivered(box, 30) is True
        assert not [line for line in box.emitted if line.startswith('{"hall"')]
    assert box_games(flash) == journal
    [(game_id, data)] = journal
    assert tls_hall.files() == {os.path.join("t1", game_id + ".txt"): data}
    out = subprocess.run(CLI + ["sim", "--headless", "--flash", str(tmp_path / "f2"), "--uplink",
                                url, "--uplink-ca", certs.ca_file(other)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("matchbox sim: --uplink: the box refused the broker's "
                                 "certificate (ValueError: The certificate is not correctly "
                                 "signed by the trusted CA)"), out.stderr
    # `matchbox uplink` (the USB bridge) checks the broker before it opens the box's port
    out = run("uplink", url, "--ca", certs.ca_file(other), "--port", str(tmp_path / "no-port"))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("matchbox uplink: mqtts://t1@127.0.0.1:%d: the broker's "
                                 "certificate was refused: " % tls_hall.mqtt), out.stderr
    out = run("uplink", url, "--ca", certs.ca_file(tls_hall.folder), "--port",
              str(tmp_path / "no-port"))
    assert out.returncode == 2 and "no board at" in out.stderr   # past the broker's check


def test_clients_without_tls_are_refused_on_the_tls_port(tls_hall, tmp_path):
    """A plain MQTT CONNECT (a box's right account) gets no CONNACK: the broker closes the
    connection; a box set for plain MQTT says so in its last connection; a TCP connection
    that never starts its handshake is closed (the embedded broker: within 10 s)."""
    password = protocol.parse_url(tls_hall.urls["t1"])[3]
    with socket.create_connection(("127.0.0.1", tls_hall.mqtt), 10) as s:
        s.sendall(connect_packet("box-t1", "t1", password))
        assert not answered(s, 10).startswith(b"\x20")   # no CONNACK: an alert at most
    plain = tls_hall.urls["t1"].replace("mqtts://", "mqtt://")
    out = subprocess.run(CLI + ["sim", "--headless", "--flash", str(tmp_path / "f"), "--uplink",
                                plain, "--uplink-timeout", "3"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.split("; the box's last connection: ")[1].strip() in (
        "the broker closed the connection", "socket error 104", "no answer from the broker"), \
        out.stderr   # closed, reset (an alert was due), or (an idle one) closed later
    if tls_hall.kind == "amqtt":
        began = time.monotonic()
        with socket.create_connection(("127.0.0.1", tls_hall.mqtt), 10) as idle:
            assert answered(idle, 30) == b""
        assert 9 < time.monotonic() - began < 20
    assert stores_and_acks(tls_hall, "t1", header_lines())   # a box over TLS: as before


def answered(s, timeout):
    """What the server sends on `s` until it closes it (within timeout, else the test
    fails)."""
    s.settimeout(timeout)
    got = b""
    while True:
        try:
            chunk = s.recv(4096)
        except ConnectionResetError:
            return got
        if not chunk:
            return got
        got += chunk


def test_the_page_speaks_only_https(tls_hall):
    """A request in plain HTTP gets one line saying to use https://; a client that does not
    trust the hall's CA refuses the page; one that does reads it."""
    with socket.create_connection(("127.0.0.1", tls_hall.http), 10) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = answered(s, 10)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 400 ")
    assert body == b"This server speaks only HTTPS: open https:// instead of http://\n"
    with pytest.raises(urllib.error.URLError) as exc:
        urllib.request.urlopen("https://127.0.0.1:%d/" % tls_hall.http, timeout=10,
                               context=ssl.create_default_context())
    assert "CERTIFICATE_VERIFY_FAILED" in str(exc.value)
    assert b"<html" in tls_hall.get("/")


def test_a_certificate_that_does_not_name_the_host_is_refused(tmp_path):
    """Mosquitto serving a certificate of the hall's CA for another name: the box checks the
    name too, and refuses it in one line."""
    if MOSQUITTO is None:
        pytest.skip(NO_MOSQUITTO)
    folder = str(tmp_path / "hall")
    port = free_port()
    url = enrol(folder, "t1", port, tls=True)
    mosquitto = Mosquitto(folder, port, tls=True)
    ca, ca_key = certs.authority(folder)
    certs._issue(folder, certs.BOX, ca, ca_key, ["hall.example"], certs.START, certs.END)
    mosquitto.start()
    try:
        with linked_box(str(tmp_path / "flash"), url, certs.ca_der(folder)) as box:
            box.boot()
            assert until(lambda: box.link["dropped"] >= 1 or box.advance(50), 20), box.link
            refusal = [line for line in box.emitted if line.startswith('{"hall"')][0]
            assert "The certificate Common Name (CN) does not match with the expected CN" \
                in refusal, refusal
    finally:
        mosquitto.kill()


def test_the_page_over_https_in_chromium(tmp_path):
    """Chromium refuses the page until it trusts the hall's certificate (here: its key pinned
    with --ignore-certificate-errors-spki-list, the flag that stands for an imported CA in a
    headless browser); then the page, following the tables over the audience broker's
    WebSocket over TLS (wss://), shows a game a box on the unix port sent over TLS, live."""
    import shutil
    import hashlib
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("browser tests need Chromium: apt-get install chromium")
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[dev]'")
    from cryptography.hazmat.primitives import serialization
    with served(tmp_path, "amqtt", boxes=("t1",), tls=True) as hall:
        key = x509(certs.pem(hall.folder, certs.WEB)[0]).public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
        pin = base64.b64encode(hashlib.sha256(key).digest()).decode()
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]
        url = "https://127.0.0.1:%d/" % hall.http
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=flags)
            with pytest.raises(sync_api.Error) as refused:
                browser.new_page().goto(url)
            assert "ERR_CERT_AUTHORITY_INVALID" in str(refused.value)
            browser.close()
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=flags + ["--ignore-certificate-errors-spki-list=" + pin])
            page = browser.new_page(viewport={"width": 360, "height": 780})
            sockets = []   # the page follows the tables over the audience broker's wss://
            page.on("websocket", lambda ws: sockets.append(ws.url))
            page.goto(url)
            page.wait_for_function("document.querySelectorAll('section.table').length == 1",
                                   timeout=20000)
            assert [u for u in sockets if u.startswith("wss://127.0.0.1:")], sockets
            ops, _ = game_ops(4, SETUP, 6)
            out = subprocess.run(CLI + ["sim", "--headless", "--flash", str(tmp_path / "t1"),
                                        "--uplink", hall.urls["t1"], "--uplink-ca",
                                        certs.ca_file(hall.folder),
                                        "--keys", " ".join(k for op in ops for k in op)],
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr
            page.wait_for_function("document.querySelector('section.table svg.displays')",
                                   timeout=20000)
            assert "to act" in page.inner_text("section.table[data-box=t1]")
            browser.close()

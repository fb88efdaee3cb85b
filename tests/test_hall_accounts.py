"""`matchbox hall enrol`: a box's account with a random password stored only hashed, in the
formats amqtt and Mosquitto read; names checked, duplicates refused in one line; the box's
settings for the hall (hall.json, 0600, the Wi-Fi password never on the command line)."""
import base64
import json
import os
import re

import pytest

from host_tools import cli
from host_tools.hall import accounts, certs

pytestmark = pytest.mark.timeout(60)

URL = re.compile(r"^mqtt://(t1):([A-Za-z0-9_-]{20,})@127\.0\.0\.1:1883$")


def enrol(capsys, *args):
    status = cli.main(["hall", "enrol"] + list(args))
    out, err = capsys.readouterr()
    return status, out.strip(), err.strip()


def test_enrol_prints_the_url_and_stores_only_hashes(tmp_path, capsys):
    hall = str(tmp_path / "hall")
    status, out, err = enrol(capsys, hall, "t1")
    assert status == 0 and err == ""
    match = URL.match(out.splitlines()[0])
    assert match, out
    password = match.group(2)
    for path in (accounts.amqtt_file(hall), accounts.mosquitto_file(hall)):
        with open(path) as f:
            text = f.read()
        assert password not in text
        assert re.search(r"^t1:\$(argon2id|7)\$", text, re.M), text
        assert re.search(r"^hall:", text, re.M)
        assert os.stat(path).st_mode & 0o077 == 0
    from pwdlib.hashers.argon2 import Argon2Hasher
    assert Argon2Hasher().verify(password, accounts.read_accounts(accounts.amqtt_file(hall))["t1"])
    assert not Argon2Hasher().verify("wrong", accounts.read_accounts(accounts.amqtt_file(hall))["t1"])


def test_mosquitto_hash_is_pbkdf2_sha512_as_mosquitto_passwd_writes_it():
    import base64
    import hashlib
    text = accounts.mosquitto_hash("secret", salt=b"0123456789ab")
    _, seven, rounds, salt, digest = text.split("$")
    assert (seven, rounds) == ("7", "101")
    assert base64.b64decode(salt) == b"0123456789ab"
    assert base64.b64decode(digest) == hashlib.pbkdf2_hmac("sha512", b"secret", b"0123456789ab", 101)


def test_duplicates_refused_unless_force(tmp_path, capsys):
    hall = str(tmp_path)
    status, first, _ = enrol(capsys, hall, "t1")
    before = open(accounts.amqtt_file(hall)).read()
    status, out, err = enrol(capsys, hall, "t1")
    assert status == 2 and out == ""
    assert err.startswith("matchbox hall: t1: box 't1' is enrolled already") and "\n" not in err
    assert open(accounts.amqtt_file(hall)).read() == before
    status, again, err = enrol(capsys, hall, "t1", "--force", "--host", "hall.local",
                               "--mqtt-port", "1884")
    assert status == 0 and again.splitlines()[0].endswith("@hall.local:1884")
    assert again.splitlines()[0] != first.splitlines()[0]
    assert accounts.boxes(hall) == ["t1"]


@pytest.mark.parametrize("name", ["T1", "a b", "", "_x", "hall", "x" * 33, "a/b", "a+", "#", "é"])
def test_bad_names_refused_in_one_line(tmp_path, capsys, name):
    status, out, err = enrol(capsys, str(tmp_path), name)
    assert status == 2 and out == ""
    assert err.startswith("matchbox hall: BOX: ") and "\n" not in err
    assert not os.path.exists(accounts.amqtt_file(str(tmp_path)))


def test_a_file_for_the_folder_is_refused(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("x")
    status, out, err = enrol(capsys, str(path), "t1")
    assert status == 2 and err.startswith("matchbox hall: cannot use %s" % path)


def test_enrol_writes_the_box_settings_0600(tmp_path, capsys, monkeypatch):
    hall = str(tmp_path / "hall")
    monkeypatch.setenv("MATCHBOX_WIFI_PASSWORD", "room-secret")
    status, out, err = enrol(capsys, hall, "t1", "--host", "192.168.4.2", "--wifi-ssid", "Room")
    assert status == 0 and err == ""
    # a host beyond 127.0.0.1: MQTT over TLS, the settings carrying the hall's CA
    password = re.match(r"^mqtts://t1:([^@]+)@192\.168\.4\.2:8883$", out.splitlines()[0]).group(1)
    path = os.path.join(hall, "boxes", "t1", "hall.json")
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
    with open(path) as f:
        assert json.load(f) == {"host": "192.168.4.2", "port": 8883, "box": "t1",
                                "password": password, "ssid": "Room",
                                "wifi_password": "room-secret",
                                "ca": base64.b64encode(certs.ca_der(hall)).decode()}
    other = str(tmp_path / "t2.json")
    monkeypatch.delenv("MATCHBOX_WIFI_PASSWORD")
    status, out, err = enrol(capsys, hall, "t2", "--settings", other)
    assert status == 0 and os.stat(other).st_mode & 0o777 == 0o600
    with open(other) as f:
        assert "ssid" not in json.load(f)


@pytest.mark.parametrize("argv,env,why", [
    (["--wifi-ssid", "Room"], None, "--wifi-ssid: the Wi-Fi password comes from "
                                    "$MATCHBOX_WIFI_PASSWORD or a prompt"),
    (["--wifi-ssid", "Room"], "short", "--wifi-ssid: a WPA2 password is 8 to 63 characters"),
    (["--wifi-ssid", "x" * 33], "long enough", "--wifi-ssid: a Wi-Fi network's name is 1 to 32"),
    (["--settings", "/proc/t1.json"], None, "cannot write in /proc"),
])
def test_settings_slips_are_one_line_and_enrol_nothing(tmp_path, capsys, monkeypatch, argv, env,
                                                       why):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    if env is None:
        monkeypatch.delenv("MATCHBOX_WIFI_PASSWORD", raising=False)
    else:
        monkeypatch.setenv("MATCHBOX_WIFI_PASSWORD", env)
    hall = str(tmp_path / "hall")
    status, out, err = enrol(capsys, hall, "t1", *argv)
    assert status == 2 and out == "" and "\n" not in err
    assert err.startswith("matchbox hall: ") and why in err, err
    assert not os.path.exists(accounts.amqtt_file(hall)) or accounts.boxes(hall) == []


# --- what enrol cannot use is refused before anything is written (issue 35) ---------------------

def nothing_made(hall):
    """No account of any box, no settings: the hall folder holds at most an empty tree."""
    made = []
    for root, _, names in os.walk(hall):
        made += [os.path.join(root, n) for n in names]
    assert made == [], made


@pytest.mark.parametrize("name", ["t2\n", "t2\r\n", "\n", "t2\x00", "t2 ", " t2", "t2\t"])
def test_a_name_with_a_line_break_or_blank_is_refused(tmp_path, capsys, name):
    hall = str(tmp_path / "hall")
    status, out, err = enrol(capsys, hall, name)
    assert status == 2 and out == "" and err.count("\n") == 0
    assert err.startswith("matchbox hall: BOX: ") and "is not a box name" in err
    nothing_made(hall)
    assert not os.path.exists(os.path.join(hall, "boxes"))


@pytest.mark.parametrize("host", ["hall/x", "hall?x", "hall#x", "user@hall", "hall\nlistener 1 ::",
                                  "hall x", "", "hall\x07", "-hall", "hall..local", "[::1]",
                                  "a" * 64 + ".local", "hall:1883", "192.168.4.2\n"])
def test_a_host_that_is_no_host_name_or_address_is_refused_before_the_account(tmp_path, capsys,
                                                                               host):
    hall = str(tmp_path / "hall")
    status, out, err = enrol(capsys, hall, "t1", "--host=" + host)
    assert status == 2 and out == "" and err.count("\n") == 0, err
    assert err.startswith("matchbox hall: --host: ") and "not a host name or an IP address" in err
    nothing_made(hall)
    status, out, err = enrol(capsys, hall, "t1")       # and the box can be enrolled after
    assert status == 0 and URL.match(out.splitlines()[0]), err


@pytest.mark.parametrize("host, shown", [("hall.local", "hall.local"), ("Hall-1", "Hall-1"),
                                         ("192.168.4.2", "192.168.4.2"), ("::1", "[::1]"),
                                         ("fe80::1", "[fe80::1]")])
def test_host_names_and_addresses_are_taken(tmp_path, capsys, host, shown):
    status, out, err = enrol(capsys, str(tmp_path / "hall"), "t1", "--host", host)
    assert status == 0 and err == ""
    scheme, port = ("mqtt", 1883) if host == "::1" else ("mqtts", 8883)   # TLS beyond loopback
    assert re.match(r"^%s://t1:[A-Za-z0-9_-]+@%s:%d$" % (scheme, re.escape(shown), port),
                    out.splitlines()[0])


def test_enrol_says_where_the_settings_holding_the_password_are(tmp_path, capsys):
    hall = str(tmp_path / "hall")
    status, out, err = enrol(capsys, hall, "t1")
    assert status == 0 and err == ""
    url, note = out.splitlines()
    path = os.path.join(hall, "boxes", "t1", "hall.json")
    assert note == ("wrote %s: the box's settings, with this password (mode 0600: keep it "
                    "private; put it on the box with `matchbox flash --hall-settings %s`)"
                    % (path, path))
    with open(path) as f:
        assert json.load(f)["password"] == URL.match(url).group(2)


@pytest.mark.parametrize("failing", ["hall.json", "mosquitto.passwd", "amqtt.passwd"])
def test_a_write_that_fails_leaves_no_account_and_no_settings(tmp_path, capsys, monkeypatch,
                                                             failing):
    from host_tools import files
    from host_tools.errors import MatchboxError
    hall = str(tmp_path / "hall")
    assert enrol(capsys, hall, "t0")[0] == 0           # the hall and another box exist
    before = {p: open(p, "rb").read() for p in (accounts.amqtt_file(hall),
                                                accounts.mosquitto_file(hall))}
    real = files.write_whole

    def full(path, *args, **kw):
        if os.path.basename(path) == failing:
            raise MatchboxError("cannot write %s" % path, "no space left on device")
        return real(path, *args, **kw)
    monkeypatch.setattr(files, "write_whole", full)
    status, out, err = enrol(capsys, hall, "t1")
    assert status == 2 and out == "" and err.count("\n") == 0
    assert err.startswith("matchbox hall: cannot write ") and "no space left on device" in err
    assert {p: open(p, "rb").read() for p in before} == before
    assert not os.path.exists(os.path.join(hall, "boxes", "t1", "hall.json"))


def test_mosquitto_conf_refuses_a_line_break_in_what_it_writes(tmp_path, capsys):
    hall = str(tmp_path / "hall")
    status = cli.main(["hall", "mosquitto-conf", hall, "--host", "127.0.0.1\nlistener 1 0.0.0.0"])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("matchbox hall: --host: ") and err.count("\n") == 1
    odd = str(tmp_path / "hall\nlistener 2 0.0.0.0")
    status = cli.main(["hall", "mosquitto-conf", odd])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1, err
    assert "a line break" in err
    assert not os.path.exists(os.path.join(hall, "mosquitto")) and not os.path.exists(odd)


def test_a_game_id_with_a_line_break_is_no_game_id():
    from host_tools.hall import protocol
    assert protocol.GAME.match("001-0123abcd")
    for game in ("001-0123abcd\n", "001-0123abcd\r", "\n001-0123abcd"):
        with pytest.raises(protocol.ProtocolError):
            protocol.read_line_message(json.dumps({"game": game, "seq": 1, "line": "x"}).encode())


@pytest.mark.parametrize("url, why", [
    ("mqtt://t1:pw@127.0.0.1:0", "its port 0 is not one of 1 to 65535"),
    ("mqtt://t1:pw@127.0.0.1:65536", "its port 65536 is not one of 1 to 65535"),
    ("mqtt://t1:pw@127.0.0.1:99999", "its port 99999 is not one of 1 to 65535"),
    ("mqtt://t1:pw@127.0.0.1:-1", "its port '-1' is not one of 1 to 65535"),
    ("mqtt://t1:pw@127.0.0.1:http", "its port 'http' is not one of 1 to 65535"),
    ("mqtt://t1:pw@127.0.0.1:1883x", "its port '1883x' is not one of 1 to 65535"),
    ("mqtt://t1:pw@hall%0Alistener:1883", "is not a host name or an IP address"),
])
def test_a_url_port_that_is_no_port_is_refused_not_taken_as_1883(url, why):
    from host_tools.hall import protocol
    with pytest.raises(protocol.ProtocolError) as got:
        protocol.parse_url(url)
    assert str(got.value).startswith("not an mqtt:// URL: ") and why in str(got.value), got.value


def test_a_url_without_a_port_is_1883_and_with_one_that_port():
    from host_tools.hall import protocol
    assert protocol.parse_url("mqtt://t1:pw@hall.local")[:2] == ("hall.local", 1883)
    assert protocol.parse_url("mqtt://t1:pw@[::1]:1")[:2] == ("::1", 1)
    assert protocol.parse_url("mqtt://t1:pw@10.0.0.5:65535")[:2] == ("10.0.0.5", 65535)

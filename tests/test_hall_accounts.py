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
    match = URL.match(out)
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
    assert status == 0 and again.endswith("@hall.local:1884") and again != first
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
    password = re.match(r"^mqtts://t1:([^@]+)@192\.168\.4\.2:8883$", out).group(1)
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

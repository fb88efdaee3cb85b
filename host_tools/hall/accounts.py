"""The hall's accounts: box names, their passwords (stored only hashed) and the hall's own.

A hall folder holds `credentials/`: `amqtt.passwd` (`name:HASH`, Argon2 through pwdlib, the
format amqtt's password-file plugin reads) and `mosquitto.passwd` (`name:$7$...`, the
PBKDF2-SHA512 format of Mosquitto 2's password file), the same accounts in both, so that the
embedded broker and an external Mosquitto accept the same boxes. The hall's own service
account (`hall`) has its password in `credentials/hall.secret` (mode 0600): the hall logs in
with it. Mosquitto's `$7$` hash is written here with hashlib (PBKDF2-HMAC-SHA512, 101
iterations, a 12-byte salt, as mosquitto_passwd writes it) because no maintained Python
package writes that format. Every file is replaced whole (host_tools.files.write_whole: a
temporary file, fsync, rename), so an interrupted enrolment leaves the old files.
"""
import base64
import hashlib
import os
import re
import secrets

from host_tools import files

SERVICE = "hall"
HALL_CLIENT_ID = "matchbox-hall"
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}\Z")   # \Z: not before a final line break
NAME_RULE = "1 to 32 of a-z 0-9 _ -, starting with a letter or digit"
PASSWORD_BYTES = 18   # 24 characters of URL-safe base64: 144 random bits


class AccountError(Exception):
    """A name or an account that cannot be used; the message says why."""


def check_name(name):
    """The box name, or AccountError saying why it cannot be one."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise AccountError("%r is not a box name (%s)" % (name, NAME_RULE))
    if name == SERVICE:
        raise AccountError("%r is the hall's own account: choose another box name" % name)
    return name


def client_id(name):
    """The one MQTT client id the account `name` connects with (the embedded broker refuses
    any other; Mosquitto, told `use_username_as_clientid`, gives each account its name)."""
    return HALL_CLIENT_ID if name == SERVICE else "box-" + name


def folder(hall):
    return os.path.join(hall, "credentials")


def amqtt_file(hall):
    return os.path.join(folder(hall), "amqtt.passwd")


def mosquitto_file(hall):
    return os.path.join(folder(hall), "mosquitto.passwd")


def secret_file(hall):
    return os.path.join(folder(hall), "hall.secret")


def mosquitto_hash(password, salt=None, iterations=101):
    """Mosquitto 2's `$7$` password hash (PBKDF2-HMAC-SHA512)."""
    salt = salt or os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return "$7$%d$%s$%s" % (iterations, base64.b64encode(salt).decode(),
                            base64.b64encode(digest).decode())


def argon2_hash(password):
    """The Argon2 hash amqtt's password-file plugin checks (pwdlib, which amqtt depends on)."""
    from pwdlib.hashers.argon2 import Argon2Hasher
    return Argon2Hasher().hash(password)


def read_accounts(path):
    """{name: hash} of a `name:hash` password file ({} when there is none)."""
    accounts = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                name, sep, value = line.strip().partition(":")
                if sep and name and not name.startswith("#"):
                    accounts[name] = value
    except FileNotFoundError:
        pass
    return accounts


def boxes(hall):
    """The names of the enrolled boxes, sorted (a line of the file that names none is no
    box)."""
    return sorted(n for n in read_accounts(amqtt_file(hall)) if n != SERVICE and NAME.match(n))


def _write_accounts(path, accounts):
    files.write_whole(path, "".join("%s:%s\n" % item for item in sorted(accounts.items())),
                      mode=files.PRIVATE)


def set_password(hall, name, password):
    """Store the hashes of name's password in both password files: in both or, when a write
    fails (or Ctrl-C comes), in neither (the file written first is put back as it was)."""
    os.makedirs(folder(hall), mode=0o700, exist_ok=True)
    written = []
    try:
        for path, make in ((mosquitto_file(hall), mosquitto_hash), (amqtt_file(hall), argon2_hash)):
            accounts = read_accounts(path)
            before = dict(accounts) if os.path.exists(path) else None
            accounts[name] = make(password)
            _write_accounts(path, accounts)
            written.append((path, before))
    except BaseException:
        for path, before in written:
            if before is None:
                os.remove(path)
            else:
                _write_accounts(path, before)
        raise


def new_password():
    return secrets.token_urlsafe(PASSWORD_BYTES)


def check_new(hall, name, force=False):
    """AccountError for a bad name, or one already enrolled unless force."""
    check_name(name)
    if name in boxes(hall) and not force:
        raise AccountError("box %r is enrolled already (--force gives it a new password; the "
                           "old one stops working)" % name)


def enrol(hall, name, force=False, password=None):
    """Create the account of box `name` with `password` (a new random one when None);
    returns the password. AccountError for a bad name, or one already enrolled unless
    force."""
    check_new(hall, name, force)
    service_password(hall)
    password = password or new_password()
    set_password(hall, name, password)
    return password


def service_password(hall):
    """The hall's own password, created with its account on first use."""
    path = secret_file(hall)
    try:
        with open(path, encoding="utf-8") as f:
            password = f.read().strip()
        if password and SERVICE in read_accounts(amqtt_file(hall)) \
                and SERVICE in read_accounts(mosquitto_file(hall)):
            return password
    except FileNotFoundError:
        pass
    password = new_password()
    os.makedirs(folder(hall), mode=0o700, exist_ok=True)
    set_password(hall, SERVICE, password)
    files.write_whole(path, password + "\n", mode=files.PRIVATE)
    return password

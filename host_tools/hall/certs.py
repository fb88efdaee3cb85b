"""The hall's certificates, for TLS on the room's network (docs/hall-reference.md#tls), made with
`cryptography` (PyPI), and the one place that turns them into a listener's configuration.

The hall is its own certificate authority: `matchbox hall` makes the CA once in DIR/tls/ and
signs with it the certificates the broker and the page show, for the names the hall is served
on (`--host`; with 0.0.0.0 this computer's name and addresses). A box carries the CA (its
hall.json, written by `hall enrol`) and checks the broker against it; a browser trusts the CA
once it is imported. Nothing is copied by hand; the CA's key never leaves DIR/tls/.

    ca.pem                  the CA's certificate (public)
    ca.key                  the CA's private key, mode 0600
    box.pem, box.key        the certificate of the MQTT listener for boxes (key 0600)
    web.pem, web.key        the certificate of the page (HTTPS), of the viewers' WebSockets and
                            of the leaf nodes' listener

A leaf node (another machine's nats-server serving viewers, `hall leaf-conf`) gets the CA's
certificate, to check the hall's node with, and a certificate of its own for its viewers'
WebSocket (leaf()), written beside its configuration, not here.

Two server certificates because two kinds of client check them. A Pico W's clock starts at
2021-01-01 at every power-up (MicroPython's rp2 port; the box has no time source), and its TLS
(mbedTLS) refuses a certificate valid only from a later date: the CA and the boxes'
certificate are valid from 2020-01-01 to 2049-12-31. Browsers refuse a server certificate
valid for longer than 825 days (Apple's rule for every CA, a user's own included): the page's
is valid for WEB_DAYS from the day it is made and made again when fewer than RENEW_DAYS are
left. Both are made again when the names they must carry change (another `--host`) or the CA
is not the one that signed them. Keys are ECDSA P-256 (a CA certificate of 386 bytes, which
the box's settings carry as base64). Every file is written through host_tools.files.
"""
import datetime
import ipaddress
import os
import socket

from host_tools import files

FOLDER = "tls"
CA, CA_KEY = "ca.pem", "ca.key"
BOX, WEB = "box", "web"        # the two server certificates: BOX.pem/.key, WEB.pem/.key
MQTT_TLS_PORT = 8883           # MQTT over TLS's registered port
START = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)   # before a Pico's clock
END = datetime.datetime(2049, 12, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)
WEB_DAYS = 397                 # under every browser's limit for a server certificate
RENEW_DAYS = 30
LOOPBACK = ("localhost", "127.0.0.1", "::1")
WILDCARD = ("0.0.0.0", "::", "")


class CertError(Exception):
    """A certificate file that cannot be used; the message says which and why."""


def folder(hall):
    return os.path.join(hall, FOLDER)


def ca_file(hall):
    return os.path.join(folder(hall), CA)


def pem(hall, kind):
    """(certificate, key) paths of the server certificate `kind` (BOX or WEB)."""
    return (os.path.join(folder(hall), kind + ".pem"), os.path.join(folder(hall), kind + ".key"))


def loopback(host):
    """Whether `host` is this computer only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_address(host):
    """Whether `host` is an IP address (v4, or v6 with or without brackets), not a name."""
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        return False


def wanted(host, forced=False):
    """Whether the hall speaks TLS on `host`: always but on 127.0.0.1 (this computer only),
    where plain MQTT and HTTP stay unless `forced` (--tls)."""
    return forced or not loopback(host)


def names(host):
    """The names the server certificates carry for a hall served on `host`: the loopback
    names always, the host itself, or for a wildcard (0.0.0.0, ::) this computer's name, its
    .local name (mDNS) and the addresses it has (those its name resolves to and the one its
    default route leaves by)."""
    out = list(LOOPBACK)
    if host not in WILDCARD:
        out.append(host.strip("[]"))
        return _unique(out)
    name = socket.gethostname()
    out += [name, name + ".local"] if "." not in name else [name]
    try:
        out += [info[4][0] for info in socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)]
    except OSError:
        pass
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:   # a UDP socket's connect sends nothing: it only picks the outgoing address
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                out.append(s.getsockname()[0])
        except OSError:
            pass
    return _unique(out)


def address(named):
    """The address a room reaches among the names of a wildcard's certificate (an IPv4 one
    first), or None."""
    found = [n for n in named if not loopback(n) and n.replace(".", "").isdigit()]
    found = found or [n for n in named if not loopback(n) and ":" in n]
    return found[-1] if found else None


def _unique(items):
    seen = []
    for item in items:
        if item and item not in seen:
            seen.append(item)
    return seen


def _san(items):
    from cryptography import x509
    out = []
    for item in items:
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(item)))
        except ValueError:
            out.append(x509.DNSName(item))
    return x509.SubjectAlternativeName(out)


def _name(text):
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Matchbox hall"),
                      x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _key_bytes(key):
    from cryptography.hazmat.primitives import serialization
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _cert_bytes(cert):
    from cryptography.hazmat.primitives import serialization
    return cert.public_bytes(serialization.Encoding.PEM)


def _read(path, what):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    try:
        with open(path, "rb") as f:
            data = f.read(64 * 1024)
        if what == "key":
            return serialization.load_pem_private_key(data, None)
        return x509.load_pem_x509_certificate(data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as exc:
        raise CertError("%s: not a readable PEM %s (%s); remove the folder %s to make the "
                        "hall's certificates again (boxes then need their settings again)"
                        % (files.shown(path), "key" if what == "key" else "certificate",
                           getattr(exc, "strerror", None) or exc, files.shown(os.path.dirname(path))))


def authority(hall):
    """(certificate, key) of the hall's CA, made (and written) the first time."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    cert, key = _read(ca_file(hall), "cert"), _read(os.path.join(folder(hall), CA_KEY), "key")
    if cert is not None and key is not None and cert.public_key() == key.public_key():
        return cert, key
    key = ec.generate_private_key(ec.SECP256R1())
    subject = _name("Matchbox hall CA %s" % os.urandom(4).hex())
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(START).not_valid_after(END)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=True, crl_sign=True,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
            .sign(key, hashes.SHA256()))
    os.makedirs(folder(hall), mode=0o700, exist_ok=True)
    files.write_whole(os.path.join(folder(hall), CA_KEY), _key_bytes(key), mode=0o600)
    files.write_whole(ca_file(hall), _cert_bytes(cert), mode=0o644)
    return cert, key


def ca_der(hall):
    """The CA's certificate, DER (what a box's settings carry), made the first time."""
    from cryptography.hazmat.primitives import serialization
    return authority(hall)[0].public_bytes(serialization.Encoding.DER)


def fingerprint(hall):
    """The SHA-256 fingerprint of the CA's certificate, as browsers show it (AB:CD:...)."""
    from cryptography.hazmat.primitives import hashes
    return ":".join("%02X" % b for b in authority(hall)[0].fingerprint(hashes.SHA256()))


def _current(path, ca, want, now, days_left):
    """Whether the certificate at path is signed by `ca`, names exactly `want` and is valid
    for at least days_left more days."""
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    cert = _read(path, "cert")
    if cert is None or cert.issuer != ca.subject:
        return False
    try:
        cert.verify_directly_issued_by(ca)
        have = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (ValueError, TypeError, InvalidSignature, x509.ExtensionNotFound):
        return False
    return (set(map(str, have)) == set(map(str, _san(want)))
            and cert.not_valid_after_utc - now >= datetime.timedelta(days=days_left))


def _make(kind, ca, ca_key, want, start, end):
    """(PEM certificate, PEM key) of a new server certificate for the names `want`, signed
    by the CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(_name("Matchbox hall (%s)" % kind))
            .issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(_san(want), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key()),
                           False)
            .sign(ca_key, hashes.SHA256()))
    return _cert_bytes(cert), _key_bytes(key)


def _issue(hall, kind, ca, ca_key, want, start, end):
    cert, key = _make(kind, ca, ca_key, want, start, end)
    cert_path, key_path = pem(hall, kind)
    files.write_whole(key_path, key, mode=0o600)
    files.write_whole(cert_path, cert, mode=0o644)


def ensure(hall, host, kinds=(BOX, WEB)):
    """Make what TLS on `host` needs in DIR/tls/: the CA the first time, each server
    certificate of `kinds` when missing, for other names, signed by another CA or (the
    page's) near its end. Returns the names the certificates carry. CertError when a file
    there is not one."""
    ca, ca_key = authority(hall)
    want = names(host)
    now = datetime.datetime.now(datetime.timezone.utc)
    if BOX in kinds and not _current(pem(hall, BOX)[0], ca, want, now, 0):
        _issue(hall, BOX, ca, ca_key, want, START, END)
    if WEB in kinds and not _current(pem(hall, WEB)[0], ca, want, now, RENEW_DAYS):
        start = now - datetime.timedelta(hours=1)
        _issue(hall, WEB, ca, ca_key, want, start, start + datetime.timedelta(days=WEB_DAYS))
    return want


def leaf(hall, name, host):
    """(the CA's certificate, a certificate for the leaf node `name` on `host`, its key), PEM,
    for another machine's nats-server serving the hall's viewers (`hall leaf-conf`): signed by
    the hall's CA (made the first time), naming host and the loopback names, valid for
    WEB_DAYS from now (browsers check it, as the page's). The CA's key stays in DIR/tls/."""
    ca, ca_key = authority(hall)
    start = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)
    cert, key = _make("leaf %s" % name, ca, ca_key, names(host), start,
                      start + datetime.timedelta(days=WEB_DAYS))
    return _cert_bytes(ca), cert, key


def served_names(hall, kind=BOX):
    """The names the server certificate `kind` carries now (the boxes' by default; [] when
    there is none)."""
    from cryptography import x509
    try:
        cert = _read(pem(hall, kind)[0], "cert")
        if cert is None:
            return []
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (CertError, x509.ExtensionNotFound):
        return []
    return [str(v) for v in san.get_values_for_type(x509.DNSName)] + \
        [str(v) for v in san.get_values_for_type(x509.IPAddress)]


def read_ca(path):
    """The DER bytes of a CA certificate file, PEM (the hall's tls/ca.pem) or DER; CertError
    saying why not."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    try:
        with open(path, "rb") as f:
            data = f.read(64 * 1024)
        cert = (x509.load_pem_x509_certificate(data) if data.lstrip().startswith(b"-----")
                else x509.load_der_x509_certificate(data))
    except OSError as exc:
        raise CertError(files.cannot_read(files.shown(path), exc)) from None
    except ValueError:
        raise CertError("%s: not a certificate (PEM or DER), as the hall's tls/ca.pem"
                        % files.shown(path)) from None
    return cert.public_bytes(serialization.Encoding.DER)


def der_certificate(text):
    """The certificate of a box's settings ("ca": base64 DER), CertError when it is not one."""
    import base64
    import binascii
    from cryptography import x509
    try:
        return x509.load_der_x509_certificate(base64.b64decode(text, validate=True))
    except (binascii.Error, ValueError):
        raise CertError("ca is not a certificate in base64 (DER), as `hall enrol` writes it") \
            from None


# --- listeners: the one place TLS becomes a broker's or a server's configuration ------------

def amqtt_listener(hall, kind, listener):
    """amqtt's listener configuration `listener` (a dict with "type" and "bind") served with
    TLS by the certificate `kind` (BOX for MQTT, WEB for WebSockets); `hall` None: as it is."""
    if hall is None:
        return listener
    cert, key = pem(hall, kind)
    return dict(listener, ssl=True, certfile=cert, keyfile=key)


def mosquitto_listener(hall, kind, port, host):
    """The lines of one Mosquitto 2 listener on host:port, with TLS by the certificate `kind`
    (BOX, WEB) when `hall` is given, TLS 1.2 at least."""
    lines = ["listener %d %s" % (port, host)]
    if hall is not None:
        cert, key = pem(hall, kind)
        lines += ["cafile %s" % os.path.abspath(ca_file(hall)),
                  "certfile %s" % os.path.abspath(cert), "keyfile %s" % os.path.abspath(key),
                  "tls_version tlsv1.2"]
    return lines


def server_context(hall, kind=WEB):
    """An ssl.SSLContext serving the certificate `kind` (the page's: WEB)."""
    import ssl
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(*pem(hall, kind))
    return ctx


def client_context(hall=None, cadata=None):
    """An ssl.SSLContext for a client of the hall's broker: its certificate checked against
    the hall's CA (its tls/ca.pem, or `cadata`, DER), the host name included."""
    import ssl
    ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH,
                                     cafile=None if cadata else ca_file(hall), cadata=cadata)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    return ctx


def refusal(host, port, ctx, timeout=10):
    """Why a TLS client with `ctx` refuses the broker at host:port (its certificate, or no
    TLS there), in words; None when the handshake succeeds or the broker cannot be reached
    (which its MQTT client then says)."""
    import ssl
    try:
        with socket.create_connection((host, port), timeout) as raw:
            with ctx.wrap_socket(raw, server_hostname=host):
                return None
    except ssl.SSLCertVerificationError as exc:
        return "the broker's certificate was refused: %s" % (exc.verify_message or exc)
    except ssl.SSLError as exc:
        return "no TLS there (%s)" % (exc.reason or exc)
    except OSError:
        return None

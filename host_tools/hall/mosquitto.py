"""A Mosquitto 2 configuration for a hall that outgrows the embedded broker.

`write(hall, host, port, tls)` writes `mosquitto/mosquitto.conf` and `mosquitto/acl` into the
hall folder: one listener (127.0.0.1 unless told; with TLS, the hall's certificates made by
host_tools.hall.certs, on any other address always), no anonymous clients, the password file
`credentials/mosquitto.passwd` that `matchbox hall enrol` keeps, and an ACL with a block per
enrolled box (it writes its journal topic, reads its ack and setup topics) and one for the
hall's service account (reads every journal, writes every ack and setup and its own journal
topic, where it pings itself): the rule of host_tools.hall.broker.allowed. Each account's client id is its name
(`use_username_as_clientid`), so no client can take the hall's session or another box's, and a
packet longer than protocol.MAX_PACKET closes its connection before Mosquitto holds it
(`max_packet_size`).
`user` is the account that writes the configuration: a Mosquitto started as root would
otherwise run as `mosquitto`, which cannot read the password file (mode 0600).
Run it again after enrolling a box and send Mosquitto SIGHUP (or restart it).
"""
import os

from host_tools import files
from host_tools.errors import MatchboxError
from host_tools.hall import accounts, certs, protocol


def acl_text(boxes):
    lines = ["# matchbox hall: each box writes its journal and reads its acks and its setup; the",
             "# hall reads every journal and writes every ack and setup. Made by `matchbox hall",
             "# mosquitto-conf`.",
             "user %s" % accounts.SERVICE,
             "topic read %s" % protocol.journal_topic("+"),
             "topic write %s" % protocol.ack_topic("+"),
             "topic write %s" % protocol.setup_topic("+"),
             "topic write %s" % protocol.journal_topic(accounts.SERVICE), ""]
    for box in boxes:
        lines += ["user %s" % box, "topic write %s" % protocol.journal_topic(box),
                  "topic read %s" % protocol.ack_topic(box),
                  "topic read %s" % protocol.setup_topic(box), ""]
    return "\n".join(lines)


def owner():
    """The name of the account running this (the password file's owner, mode 0600)."""
    import pwd
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def conf_text(hall, host, port, tls=False):
    here = os.path.abspath(os.path.join(hall, "mosquitto"))
    return "\n".join([
        "# Mosquitto 2 configuration of a matchbox hall (`matchbox hall mosquitto-conf`).",
        "# Run: mosquitto -c %s" % os.path.join(here, "mosquitto.conf"),
        "# give it more open files than idle connections anyone may hold (a file each; it closes",
        "# one without a CONNECT after about 90 s): ulimit -n 65536, or LimitNOFILE=65536",
        "# started as root, Mosquitto runs as this account, the owner of the password file",
        "user %s" % owner(),
        "per_listener_settings false",
        "allow_anonymous false",
        *certs.mosquitto_listener(hall if tls else None, certs.BOX, port, host),
        "password_file %s" % os.path.abspath(accounts.mosquitto_file(hall)),
        "acl_file %s" % os.path.join(here, "acl"),
        "use_username_as_clientid true",
        "max_packet_size %d" % protocol.MAX_PACKET,
        "persistence false",
        "max_queued_messages 100000",
        ""])


def check_values(hall, host):
    """MatchboxError when a value the configuration holds would break its lines: a line break
    or another control character in the hall folder's path, the host or the account name
    (Mosquitto reads one directive a line: it would be a directive of its own)."""
    for what, value in (("DIR", os.path.abspath(hall)), ("--host", host), ("the account", owner())):
        if any(ord(c) < 32 or ord(c) == 127 for c in value):
            raise MatchboxError(what, "%r holds a line break or another control character, "
                                "which a Mosquitto configuration line cannot hold" % value)


def write(hall, host="127.0.0.1", port=1883, tls=False):
    """Write the configuration (with TLS: the certificates made first); returns the path of
    mosquitto.conf."""
    check_values(hall, host)
    accounts.service_password(hall)
    here = os.path.join(hall, "mosquitto")
    os.makedirs(here, exist_ok=True)
    files.write_whole(os.path.join(here, "acl"), acl_text(accounts.boxes(hall)))
    conf = os.path.join(here, "mosquitto.conf")
    if tls:
        certs.ensure(hall, host)
    files.write_whole(conf, conf_text(hall, host, port, tls))
    return conf

"""The audience's broker: NATS (Debian's `nats-server`), serving the hall's page over MQTT over
WebSockets, started by `matchbox hall serve` as a child process (docs/hall-reference.md#the-audience).

Why NATS: it is a broker in Go that serves MQTT 3.1.1 over WebSockets (its `websocket` listener,
path /mqtt), keeps MQTT's retained messages in its JetStream store, fans a message out to
thousands of connections on every core, and links servers into a tree with its own leaf-node
connections (an audience beyond one machine). amqtt (Python) could not carry thousands of
viewers; Debian's Mosquitto 2.0.11 is built without WebSockets; RabbitMQ 3.10 keeps MQTT's
retained messages on one node only, and a NATS cluster (or RabbitMQ's) of two servers loses its
quorum, and its MQTT, when one goes.

Accounts (the configuration's `authorization`, written here, mode 0600, in DIR/audience/):

    hall        the hall's publisher (audience.Publisher): publishes matchbox/view/#, nothing
                else; on the MQTT listener, which is 127.0.0.1 only
    spectator   every page: subscribes to matchbox/view/# and publishes nothing (a publish is
                dropped, a subscription to any other topic refused with 0x80); its password is
                given to every page (GET /audience.json): it is no secret, its account is what
                keeps a viewer to reading the views
    leaf        a leaf node's link (another machine's nats-server serving viewers there,
                `matchbox hall leaf-conf`); its password is a secret of the hall's folder

Bounds: LIMITS below (connections, the largest message, what may wait for a slow viewer and
for how long before NATS closes its connection, the time a connection has to say who it is).
`listeners()` is the one place where the listeners are written: with TLS (the hall served
beyond 127.0.0.1, or --tls) the viewers' WebSocket is wss:// and the leaf nodes' listener
speaks TLS, both with the page's certificate. A leaf's configuration (leaf_conf) checks the
hall's node against the hall's CA on its link and serves its viewers over wss:// with a
certificate of its own (host_tools.hall.certs.leaf), the files beside it.
"""
import os
import re
import shutil
import subprocess
import threading
import time

from host_tools import files
from host_tools.hall import accounts

SERVER = "nats-server"
SPECTATOR = "spectator"
LEAF = "leaf"
VIEW_SUBJECTS = ("matchbox.view", "matchbox.view.>")   # MQTT's matchbox/view/#, as NATS says it
LIMITS = {
    "max_connections": 20000,   # every client together; the next one is refused
    "max_payload": 512 << 10,   # the largest message (a snapshot of 200 tables is 15 KB)
    "max_pending": 1 << 20,     # bytes waiting for one slow client before it is closed: about
                                # 20 s of digests at 200 tables; 5 GB at most for 5000 viewers
    "write_deadline": "5s",     # a client that takes no bytes for this long is closed
}
AUTH_S = 5                      # a connection's CONNECT (or WebSocket handshake) within this
# Go's garbage collector for nats-server: every message to a viewer allocates its frame, and at
# 5000 viewers the collector at Go's default (GOGC=100) took a third of NATS's CPU. At 400 it
# runs a quarter as often (31 instead of 45 us of CPU a message to a viewer, measured with
# 5000 viewers; its memory 0.9 instead of 0.4 GB), and GOMEMLIMIT makes it run more often
# before the heap passes 1 GiB. The hall's own nats-server only; a leaf's says so in its
# configuration (its command line is the user's).
GO_ENV = {"GOGC": "400", "GOMEMLIMIT": "1GiB"}
NO_SERVER = ("the page's viewers need NATS (apt-get install nats-server), or give "
             "--no-audience")


def find():
    """The path of nats-server, or None."""
    return shutil.which(SERVER) or next(
        (p for p in ("/usr/sbin/nats-server", "/usr/bin/nats-server") if os.path.exists(p)), None)


def folder(hall):
    return os.path.join(hall, "audience")


def secret(hall, name):
    """The password of the audience's account `name` (spectator, leaf), made on first use."""
    path = os.path.join(accounts.folder(hall), "%s.secret" % name)
    try:
        with open(path, encoding="utf-8") as f:
            password = f.read().strip()
        if password:
            return password
    except FileNotFoundError:
        pass
    os.makedirs(accounts.folder(hall), mode=0o700, exist_ok=True)
    password = accounts.new_password()
    files.write_whole(path, password + "\n", mode=files.PRIVATE)
    return password


def _quote(text):
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def _list(values):
    return "[%s]" % ", ".join(_quote(v) for v in values)


def users(hall, publisher=True):
    """The `authorization` block: the hall's publisher (on the hall's node only: a leaf's
    configuration, on another machine, does not carry the hall's password), the spectator."""
    lines = ["authorization {", "  timeout: %d" % AUTH_S, "  users: ["]
    if publisher:
        lines.append("    {user: %s, password: %s, permissions: {publish: {allow: %s}, "
                     "subscribe: {deny: [\">\"]}}}" % (
                         accounts.SERVICE, _quote(accounts.service_password(hall)),
                         _list(VIEW_SUBJECTS)))
    lines.append("    {user: %s, password: %s, permissions: {publish: {deny: [\">\"]}, subscribe: "
                 "{allow: %s}}}" % (SPECTATOR, _quote(secret(hall, SPECTATOR)),
                                    _list(VIEW_SUBJECTS)))
    return "\n".join(lines + ["  ]", "}"])


def _tls(files):
    """A listener's TLS block for (certificate, key) paths (host_tools.hall.certs.pem), as
    given: nats-server 2.9 reads a relative one from the folder it runs in, not from its
    configuration's."""
    return "tls { cert_file: %s, key_file: %s }" % (_quote(files[0]), _quote(files[1]))


def _where(host, port):
    """HOST:PORT as NATS reads a listen address ([ADDRESS]:PORT for IPv6)."""
    return "%s:%d" % ("[%s]" % host if ":" in host and not host.startswith("[") else host, port)


def listeners(host, ws_port, mqtt_host="127.0.0.1", mqtt_port=-1, leaf_port=None,
              leaf_host=None, tls=None):
    """The listeners: the viewers' WebSocket (on host), MQTT for the hall's publisher
    (127.0.0.1), and the leaf nodes' when a port is given. -1 picks a free port. `tls`: the
    (certificate, key) the WebSocket (wss://) and the leaf nodes' listener show; the one place
    TLS goes into the audience broker's configuration."""
    lines = ["listen: 127.0.0.1:-1   # NATS's own protocol: nobody's",
             "mqtt { listen: \"%s:%d\", max_ack_pending: 100 }" % (mqtt_host, mqtt_port),
             "websocket { listen: \"%s\", %s, handshake_timeout: \"%ds\" }"
             % (_where(host, ws_port), _tls(tls) if tls else "no_tls: true", AUTH_S)]
    if leaf_port is not None:
        lines.append("leafnodes { listen: \"%s\"%s }" % (_where(leaf_host or host, leaf_port),
                                                         ", " + _tls(tls) if tls else ""))
    return lines


def _limits():
    return ["%s: %s" % (k, _quote(v) if isinstance(v, str) else v) for k, v in LIMITS.items()]


def hub_conf(hall, host="127.0.0.1", ws_port=8781, leaf_port=None, mqtt_port=-1, tls=None):
    """The hall's NATS: the hub of the audience (leaf nodes connect to it on leaf_port); `tls`:
    the (certificate, key) its WebSocket and leaf listener show."""
    store = os.path.abspath(os.path.join(folder(hall), "jetstream"))
    tls = tuple(map(os.path.abspath, tls)) if tls else None
    lines = ["# The hall's audience broker (`matchbox hall serve`); made again at each start.",
             "server_name: matchbox-hall",
             "jetstream { store_dir: %s, domain: hall, max_memory_store: 64MB, "
             "max_file_store: 1GB }" % _quote(store)]
    lines += listeners(host, ws_port, mqtt_port=mqtt_port, leaf_port=leaf_port, tls=tls)
    if leaf_port is not None:
        lines[-1] = lines[-1][:-1] + ", authorization { user: %s, password: %s } }" % (
            LEAF, _quote(secret(hall, LEAF)))
    lines += _limits() + [users(hall), ""]
    return "\n".join(lines)


def leaf_conf(hall, hub, host="0.0.0.0", ws_port=8781, name="matchbox-leaf", store=None,
              tls=None):
    """A leaf node's configuration, for another machine: it links to the hub
    (`HOST:PORT` of the hall's `--leaf-port`) and serves viewers there on host (every
    address when host is a name); its MQTT uses the hub's JetStream (js_domain), where the
    retained views are. `tls`: the file names (CA, certificate, key) beside the
    configuration, for a hall that speaks TLS: the link checks the hub's certificate against
    the CA, the viewers' WebSocket is wss:// with the leaf's certificate; nats-server reads
    them from the folder it runs in."""
    from host_tools.hall import certs
    store = store or "/var/lib/nats/%s" % name
    lines = ["# A leaf of the hall's audience broker (`matchbox hall leaf-conf`). Run it in this",
             "# folder%s: %snats-server -c leaf.conf" % (
                 ", where its certificates are" if tls else "",
                 "".join("%s=%s " % kv for kv in GO_ENV.items())),
             "server_name: %s" % name,
             "jetstream { store_dir: %s, domain: %s }" % (_quote(store), name)]
    listen = host if certs.is_address(host) else "127.0.0.1" if certs.loopback(host) \
        else "0.0.0.0"
    lines += listeners(listen, ws_port, tls=tls[1:] if tls else None)
    lines[-2] = "mqtt { listen: \"127.0.0.1:-1\", js_domain: hall }"
    lines.append("leafnodes { remotes: [ { url: %s%s } ] }" % (_quote(
        "nats-leaf://%s:%s@%s" % (LEAF, secret(hall, LEAF), hub)),
        ", tls { ca_file: %s }" % _quote(tls[0]) if tls else ""))
    lines += _limits() + [users(hall, publisher=False), ""]
    return "\n".join(lines)


def write(path, text):
    """Write a configuration (it holds passwords: mode 0600, its folder 0700)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
    files.write_whole(path, text, mode=files.PRIVATE)
    return path


LISTENING = re.compile(r"Listening for (websocket|MQTT|leafnode) (?:clients|connections) on "
                       r"(?:wss?|mqtt|nats-leaf)?(?:://)?([^ ]+?):(\d+)$")


def more_files():
    """A file a connection: let this process (a broker's: nats-server, amqtt's) open 65536
    files, or as many as its hard limit allows."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft != resource.RLIM_INFINITY and soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _child():
    """In the child before nats-server runs: its files (more_files), and on Linux its end with
    the hall's (PR_SET_PDEATHSIG: the hall killed, even with SIGKILL, takes its broker along
    instead of leaving it holding the viewers' port)."""
    import signal
    more_files()
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Server:
    """nats-server with a configuration, as a child process (GO_ENV in its environment, run
    in `cwd`): start() returns once it is ready (its ports in `ports`: websocket, MQTT,
    leafnode), or raises OSError with NATS's own reason; stop() ends it. Its log goes to
    DIR/audience/nats.log."""

    def __init__(self, conf, log, server=None, cwd=None):
        self.argv = [server or find() or SERVER, "-c", conf]
        self.log = log
        self.cwd = cwd   # where it runs: a leaf's configuration names its files from there
        self.proc = None
        self.ports = {}
        self.stopping = None   # an Event the one who keeps it running watches (hall serve)

    def start(self, timeout=30):
        ready = threading.Event()
        said = []
        try:
            self.proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                         text=True, errors="replace", preexec_fn=_child,
                                         cwd=self.cwd, env=dict(os.environ, **GO_ENV),
                                         # a session of its own: a terminal's Ctrl-C is the
                                         # hall's, which stops its broker itself
                                         start_new_session=True)
        except OSError as exc:
            raise OSError("cannot run %s: %s" % (self.argv[0], exc.strerror or exc)) from None

        def read():
            with open(self.log, "a", encoding="utf-8") as log:
                for line in self.proc.stderr:
                    log.write(line)
                    log.flush()
                    line = line.rstrip()
                    m = LISTENING.search(line)
                    if m:
                        self.ports[m.group(1).lower()] = int(m.group(3))
                    elif "Server is ready" in line:
                        ready.set()
                    elif "[FTL]" in line or "[ERR]" in line and not ready.is_set() \
                            and "leafnode" not in line:   # a leaf's link NATS tries again
                        said.append(line.split("] ", 2)[-1])
                    elif line.startswith(SERVER + ":"):   # a configuration it cannot read
                        said.append(line[len(SERVER) + 1:].strip())
            ready.set()
        threading.Thread(target=read, daemon=True, name="nats-log").start()
        deadline = time.monotonic() + timeout
        while not ready.wait(0.1) and time.monotonic() < deadline:
            pass
        if said or not ready.is_set() or self.proc.poll() is not None:
            self.stop()
            raise OSError(said[-1] if said else "nats-server did not start within %d s"
                          % timeout)
        return self

    def ended(self):
        """The exit status of a server that ended by itself (None while it runs, or once
        stopped)."""
        return None if self.proc is None else self.proc.poll()

    def stop(self, timeout=10):
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)

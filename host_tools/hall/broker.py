"""The embedded broker: amqtt (an MQTT 3.1.1 broker from PyPI) in a process of the hall's own.

`matchbox hall serve` without --broker starts it as a child process (`BrokerProcess`: this
module run with `python -m`), so that the broker and the hall's records and page each have a
core of their own (one process, one interpreter lock, was saturated near 100 tables at ten
times a human pace, docs/hall.md). The child lives and dies with the hall: it stops when its
standard input closes, which happens however the hall ends (SIGKILL included).

It listens on 127.0.0.1 unless told otherwise (with TLS where the hall serves TLS: the listener
made by host_tools.hall.certs; a TLS handshake must end within CONNECT_S), authenticates every client against the hall's
`credentials/amqtt.passwd` (amqtt's own password-file plugin, reading the file again when
`matchbox hall enrol` has changed it, so a box enrolled while the hall runs can connect; the
Argon2 checks in threads, off the event loop; a password found right once remembered by its
HMAC, so a box connecting again is not checked by Argon2 again) and
refuses anonymous clients (no anonymous plugin is loaded, and the file plugin says no to a
client without a name). Topics: amqtt's ACL plugin lists topics per user and has no
per-user pattern (Mosquitto's `pattern ... %u`), so the rule of the hall - a box publishes only
to matchbox/ITS-NAME/journal and reads only matchbox/ITS-NAME/ack and matchbox/ITS-NAME/setup,
the hall's service account reads every journal and writes every ack and setup - is the small topic plugin `BoxTopics` here, the
same rule `mosquitto.acl` writes for Mosquitto. `HallBroker` mends two faults of amqtt 0.12:
retained messages sent to every connecting client past the topic rule, and its loops over the
subscriptions broken by a client subscribing meanwhile.
"""
import asyncio
import concurrent.futures
import functools
import hashlib
import hmac
import logging
import os
import secrets
import signal
import subprocess
import sys
import threading

from amqtt.adapters import StreamReaderAdapter, StreamWriterAdapter
from amqtt.broker import Broker
from amqtt.contexts import Action, ListenerType
from amqtt.errors import AMQTTError, BrokerError, MQTTError, NoDataError
from amqtt.mqtt.connack import NOT_AUTHORIZED, ConnackPacket
from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
from amqtt.plugins.authentication import FileAuthPlugin
from amqtt.plugins.base import BaseTopicPlugin

from host_tools.hall import accounts, certs, protocol

CHECK_THREADS = 2   # Argon2 password checks at once, off the broker's event loop
CONNECT_S = 10      # a connection's CONNECT must have come within this
MAX_WAITING = 256   # connections without their CONNECT yet, at most: the oldest closed


class Accounts(FileAuthPlugin):
    """amqtt's password-file plugin, reading the file again when it has changed, checking each
    password (Argon2, a third of a second of CPU) in a thread of its own rather than on the
    broker's event loop (which goes on moving every other client's messages meanwhile), and
    remembering the passwords it has found right: a box that connects again with the same
    password, its hash unchanged in the file, is let in without a second Argon2 check. What it
    remembers is an HMAC-SHA256 of the password under a key drawn at start (never the
    password, never written anywhere); a wrong password is never remembered, so every wrong
    guess costs a whole Argon2 check, and a box given a new password (`enrol --force`) has a
    new hash: its old password no longer matches anything."""

    def __init__(self, context):
        FileAuthPlugin.__init__(self, context)
        self._stamp = self._file_stamp()
        self._checks = concurrent.futures.ThreadPoolExecutor(CHECK_THREADS, "hall-argon2")
        self._key = secrets.token_bytes(32)
        self._verified = {}   # (name, hash) -> HMAC of the password found right

    def _file_stamp(self):
        try:
            st = os.stat(self._get_config_option("password-file", ""))
            return (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return None

    def _mac(self, password):
        return hmac.new(self._key, password.encode("utf-8", "surrogatepass"),
                        hashlib.sha256).digest()

    async def authenticate(self, *, session):
        stamp = self._file_stamp()
        if stamp != self._stamp:
            self._users = {}
            self._read_password_file()
            self._stamp = stamp
        if not session or not session.username or session.password is None:
            return False
        name, password = session.username, session.password
        if session.client_id != accounts.client_id(name):
            return False
        hashed = self._users.get(name)
        if not hashed:
            return False
        mac = self._mac(password)
        known = self._verified.get((name, hashed))
        if known is not None and hmac.compare_digest(known, mac):
            return True
        try:
            ok = await asyncio.get_running_loop().run_in_executor(
                self._checks, self.pwd_hasher.verify, password, hashed)
        except Exception:   # a hash pwdlib cannot read: no
            return False
        if ok:
            self._verified[(name, hashed)] = mac
        return bool(ok)


def allowed(user, topic, action):
    """Whether account `user` may do `action` ("publish", "subscribe", "receive") on topic."""
    if not user or not topic:
        return False
    if user == accounts.SERVICE:
        if action == "publish":   # every ack and setup, its own journal topic (keeper's ping)
            return (protocol.box_of(topic, "ack") is not None
                    or protocol.box_of(topic, "setup") is not None
                    or topic == protocol.journal_topic(user))
        return topic == protocol.journal_topic("+") or protocol.box_of(topic, "journal") is not None
    if action == "publish":
        return topic == protocol.journal_topic(user)
    return topic in (protocol.ack_topic(user), protocol.setup_topic(user))


class BoxTopics(BaseTopicPlugin):
    """Each box its own topics, the hall's account every box's (`allowed`)."""

    async def topic_filtering(self, *, session=None, topic=None, action=None):
        user = session.username if session else None
        verb = {Action.PUBLISH: "publish", Action.SUBSCRIBE: "subscribe",
                Action.RECEIVE: "receive"}.get(action)
        return allowed(user, topic, verb)


class _Copied(dict):
    """amqtt's subscriptions, looped over through a copy: amqtt 0.12 awaits inside its loops
    over them (at every connection, at every message), and a client subscribing meanwhile
    changed the dict under the loop ("dictionary changed size during iteration", which killed
    that connection's handler).

    `items()` is amqtt's loop of a message over every topic filter (Broker._run_broadcast, its
    only caller), which matched each message against every box's subscription in Python: at
    200 tables its event loop was saturated. Given the message's topic (`topic`, set by
    _Broadcasts as the message is taken, used once) it lists only the filters that may match
    it: the topic itself and those with a wildcard, which amqtt's own matching then checks."""

    topic = None

    def __iter__(self):
        return iter(list(dict.keys(self)))

    def items(self):
        topic, self.topic = self.topic, None
        if topic is None:
            return list(dict.items(self))
        return [(f, subs) for f, subs in dict.items(self)
                if f == topic or "+" in f or "#" in f]


class _Broadcasts(asyncio.Queue):
    """amqtt's queue of messages to deliver, telling its subscriptions (_Copied) the topic of
    each message taken: amqtt loops over them right after, without an await between."""

    def __init__(self, subscriptions):
        asyncio.Queue.__init__(self)
        self.subscriptions = subscriptions

    async def get(self):
        message = await asyncio.Queue.get(self)
        self.subscriptions.topic = message.get("topic")
        return message


class PacketTooLong(AMQTTError):
    """A client sent a packet longer than protocol.MAX_PACKET: its connection is closed."""


class _Bounded(StreamReaderAdapter):
    """A connection's reader that refuses, before reading it, any piece longer than
    protocol.MAX_PACKET (amqtt reads a packet's remaining length, then its payload in one
    readexactly, which would hold the whole of it in memory)."""

    async def read(self, n=-1):
        if n < 0 or n > protocol.MAX_PACKET:
            raise PacketTooLong("a packet longer than %d bytes" % protocol.MAX_PACKET)
        return await StreamReaderAdapter.read(self, n)


class HallBroker(Broker):
    """amqtt's Broker with four of its faults mended.

    A CONNECT is authenticated (password, and the account's own client id) before anything is
    done with its client id: amqtt 0.12 deletes the session of the id of a clean-session CONNECT,
    or takes over its connection, and only then checks the password (Broker.
    _initialize_client_session, then _handle_client_session). Here a refused CONNECT gets its
    CONNACK (not authorized) and is closed before amqtt's session handling, which runs after the
    check as amqtt's own code (_sessions_of, the few lines of it that come after reading the
    CONNECT). Reads longer than protocol.MAX_PACKET close the connection (_Bounded). amqtt waits
    for a connection's CONNECT for ever: here it must come within CONNECT_S, and of the
    connections still waiting for theirs at most MAX_WAITING are kept (a new one closes the
    oldest), so idle connections cannot use up the broker's files and keep boxes out.

    At each connection amqtt 0.12 sends the client the retained messages of every topic filter
    anyone subscribes to, without the topic rule: a box connecting got every other box's
    retained acknowledgement (and a hall of n boxes sent n of them at each connection), and its
    own twice when its previous session's subscription was still there (once at the CONNECT,
    once at its SUBSCRIBE); here only those of the filters the client's own session subscribes
    to, and may (`allowed`). Its subscriptions are looped over through a copy (_Copied), a
message only over the filters that may match its topic."""

    def __init__(self, *args, **kwargs):
        Broker.__init__(self, *args, **kwargs)
        self._subscriptions = _Copied(self._subscriptions)
        self._broadcast_queue = _Broadcasts(self._subscriptions)
        self._waiting = {}   # connections without their CONNECT yet, oldest first

    async def stream_connected(self, reader, writer, listener_name):
        adapter = StreamWriterAdapter(writer)
        self._waiting[adapter] = writer
        while len(self._waiting) > MAX_WAITING:
            self._waiting.pop(next(iter(self._waiting))).close()
        try:
            await self._client_connected(listener_name, _Bounded(reader), adapter)
        finally:
            self._waiting.pop(adapter, None)

    async def _create_server_instance(self, listener_name, listener_type, address, port,
                                      ssl_context):
        """amqtt's own, with a bound on an MQTT listener's TLS handshake (asyncio's default:
        60 s, during which a connection is not yet one of the broker's, nor counted among the
        waiting)."""
        if ssl_context is None or listener_type != ListenerType.TCP:
            return await Broker._create_server_instance(self, listener_name, listener_type,
                                                        address, port, ssl_context)
        return await asyncio.start_server(
            functools.partial(self.stream_connected, listener_name=listener_name), address,
            port, reuse_address=True, ssl=ssl_context, ssl_handshake_timeout=CONNECT_S)

    async def _initialize_client_session(self, reader, writer, remote_address, remote_port):
        try:
            handler, session = await asyncio.wait_for(BrokerProtocolHandler.init_from_connect(
                reader, writer, self.plugins_manager), CONNECT_S)
        except MQTTError:   # amqtt answered it (a CONNACK refusing it) or it is not MQTT
            await writer.close()
            raise
        except Exception as exc:   # no CONNECT in time, the connection closed, a packet too long
            await writer.close()
            raise NoDataError("no CONNECT read: %s" % (type(exc).__name__,)) from None
        finally:
            self._waiting.pop(writer, None)
        if not await self._authenticate(session, None):
            await ConnackPacket.build(0, NOT_AUTHORIZED).to_stream(writer)
            await writer.close()
            raise MQTTError("refused %r (client id %r)" % (session.username, session.client_id))
        return handler, await self._sessions_of(session)

    async def _sessions_of(self, session):
        """amqtt 0.12's session handling of an accepted CONNECT (Broker.
        _initialize_client_session after its read): a clean session drops the old one of its
        client id, else the old one is taken up with the new connection's settings."""
        if session.clean_session:
            await self._delete_session(session.client_id)
            session.parent = 0
        elif session.client_id in self._sessions:
            old = self._sessions[session.client_id][0]
            for name in ("will_flag", "will_message", "will_topic", "will_qos", "keep_alive",
                         "username", "password"):
                setattr(old, name, getattr(session, name))
            session = old
            session.parent = 1
        else:
            session.parent = 0
        delay = self.config.get("timeout-disconnect-delay", 0)
        if session.keep_alive > 0 and isinstance(delay, int):
            session.keep_alive += delay
        return session

    async def _publish_retained_messages_for_subscription(self, subscription, session):
        if not allowed(session.username if session else None, subscription[0], "subscribe"):
            return
        if not any(s is session for s, _ in self._subscriptions.get(subscription[0], ())):
            return   # another session's filter (a fresh session has none: its SUBSCRIBE sends)
        await Broker._publish_retained_messages_for_subscription(self, subscription, session)


def config(hall, host, port, tls=False):
    """amqtt's configuration: one MQTT listener on host:port (TLS: the hall's certificates)."""
    listener = {"type": "tcp", "bind": "%s:%d" % (host, port)}
    return {
        "listeners": {"default": certs.amqtt_listener(hall if tls else None, certs.BOX,
                                                      listener)},
        "plugins": {
            "host_tools.hall.broker.Accounts": {"password_file": accounts.amqtt_file(hall)},
            "host_tools.hall.broker.BoxTopics": {},
        },
    }


class EmbeddedBroker:
    """amqtt's Broker on its own event loop in a daemon thread: start() returns once it
    listens (or raises OSError when it cannot), stop() shuts it down."""

    def __init__(self, hall, host="127.0.0.1", port=1883, tls=False):
        self.hall = hall
        self.host = host
        self.port = port
        self.tls = tls
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="embedded-broker")
        self.broker = None
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.CRITICAL)

    def start(self, timeout=30):
        """Start listening; OSError (with the reason in words) when it cannot."""
        self.thread.start()

        async def begin():
            self.broker = HallBroker(config(self.hall, self.host, self.port, self.tls),
                                     loop=self.loop)
            await self.broker.start()
        try:
            asyncio.run_coroutine_threadsafe(begin(), self.loop).result(timeout)
        except BrokerError as exc:
            cause = exc.__cause__
            self.stop()
            raise OSError(getattr(cause, "strerror", None) or str(cause or exc)) from None

    def stop(self, timeout=10):
        if self.broker is not None:
            try:
                asyncio.run_coroutine_threadsafe(self.broker.shutdown(), self.loop).result(timeout)
            except Exception:   # shutting down anyway
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout)


class BrokerProcess:
    """The embedded broker in a child process: start() returns once it listens (OSError with
    the reason in words when it cannot), stop() ends it. The child reads its standard input
    until it closes: the hall's end, or the hall killed."""

    def __init__(self, hall, host="127.0.0.1", port=1883, tls=False):
        self.argv = [sys.executable, "-m", "host_tools.hall.broker", hall, host, str(port),
                     "tls" if tls else "plain"]
        self.proc = None

    def start(self, timeout=30):
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        said = [""]
        reader = threading.Thread(target=lambda: said.__setitem__(0, self.proc.stdout.readline()),
                                  daemon=True)
        reader.start()
        reader.join(timeout)
        line = said[0].strip()
        if line != "listening":
            ended = self.proc.poll()
            self.stop()
            if line.startswith("error: "):
                raise OSError(line[len("error: "):])
            raise OSError("the broker's process ended (status %s) before it listened" % ended
                          if ended is not None else
                          "the broker did not start within %d s" % timeout)

    def stop(self, timeout=10):
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)
        proc.stdout.close()


def _child(hall, host, port, tls=False):
    """The child's life: listen, say so on stdout, serve until stdin closes."""
    from host_tools.hall.nats import more_files
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the hall's to handle
    more_files()   # a file a connection
    broker = EmbeddedBroker(hall, host, port, tls)
    try:
        broker.start()
    except OSError as exc:
        print("error: %s" % (exc.strerror or exc), flush=True)
        return 1
    print("listening", flush=True)
    try:
        while sys.stdin.read(4096):
            pass
    finally:
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:] == ["tls"]))

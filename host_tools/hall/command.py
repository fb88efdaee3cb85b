"""`matchbox hall`: enrol boxes, serve the hall, write a Mosquitto configuration (docs/hall.md).

    matchbox hall enrol DIR BOX [--host H] [--mqtt-port Q] [--tls] [--force] [--settings FILE]
                                [--wifi-ssid SSID]
    matchbox hall serve DIR [--port P] [--mqtt-port Q] [--host H] [--tls] [--broker URL]
                            [--points LIST] [--audience-port W] [--leaf-port L] [--no-audience]
    matchbox hall mosquitto-conf DIR [--host H] [--mqtt-port Q] [--tls]
    matchbox hall leaf-conf DIR --hub HOST:PORT [--host H] [--tls] [--name N]
                            [--audience-port W] [--store-dir D] [-o FILE]

TLS: on any address but 127.0.0.1 (this computer only) the hall speaks only TLS (MQTT over TLS
on port 8883, the page over HTTPS), with certificates of its own CA (host_tools.hall.certs);
`--tls` asks for it on 127.0.0.1 too. A box enrolled for TLS carries the CA in its settings.
Every slip is one line, `matchbox hall: what: why`, status 2 (host_tools.errors).
"""
import os
import sys
import threading

from host_tools import files
from host_tools.errors import MatchboxError, check_folder, int_in

DEFAULT_PORT = 8780
MQTT_PORT = 1883
MQTT_TLS_PORT = 8883
AUDIENCE_PORT = 8781   # the viewers' WebSocket (MQTT over WebSockets, the audience broker)
WIFI_ENV = "MATCHBOX_WIFI_PASSWORD"   # the Wi-Fi password of `enrol --wifi-ssid` (not in argv)


def _where(parser, host_help, port_help):
    """--host, --mqtt-port and --tls: where the broker is, or listens, and how."""
    parser.add_argument("--host", default="127.0.0.1", help=host_help)
    parser.add_argument("--mqtt-port", type=int_in(1, 65535), default=None,
                        help="%s (default %d, with TLS %d)" % (port_help, MQTT_PORT,
                                                              MQTT_TLS_PORT))
    parser.add_argument("--tls", action="store_true",
                        help="TLS on 127.0.0.1 too (on any other address the hall speaks only "
                             "TLS, with certificates of its own CA in DIR/tls/)")


def _tls(args):
    """Whether TLS is used here (certs.wanted), and the MQTT port (the default for it)."""
    from host_tools.hall import certs
    tls = certs.wanted(args.host, args.tls)
    return tls, args.mqtt_port or (MQTT_TLS_PORT if tls else MQTT_PORT)


def _certificates(hall, host, kinds=("box", "web")):
    """The hall's certificates for host (certs.ensure), or MatchboxError saying why not."""
    from host_tools.hall import certs
    try:
        return certs.ensure(hall, host, kinds)
    except certs.CertError as exc:
        raise MatchboxError("--tls", str(exc)) from None
    except OSError as exc:
        raise MatchboxError(os.path.join(hall, certs.FOLDER), "cannot write the hall's "
                            "certificates: %s" % (exc.strerror or exc)) from None


def add_arguments(parser):
    sub = parser.add_subparsers(dest="hall_command", metavar="ACTION", parser_class=type(parser))
    sub.required = True
    enrol = sub.add_parser("enrol", help="create a box's account; print its mqtt:// URL",
                           description="create a box's account in the hall folder DIR (a random "
                                       "password, stored hashed) and print its mqtt:// URL")
    enrol.add_argument("dir", metavar="DIR", help="the hall's folder (created if missing)")
    enrol.add_argument("box", metavar="BOX", help="the box's name: 1 to 32 of a-z 0-9 _ -")
    _where(enrol, "the broker's host name in the URL (default 127.0.0.1)",
           "the broker's port in the URL")
    enrol.add_argument("--force", action="store_true",
                       help="give a box enrolled already a new password")
    enrol.add_argument("--settings", metavar="FILE",
                       help="where to write the box's settings for the hall (default "
                            "DIR/boxes/BOX/hall.json, mode 0600; put it on the box as hall.json)")
    enrol.add_argument("--wifi-ssid", metavar="SSID",
                       help="the Wi-Fi network a Pico W joins; its password comes from "
                            "$%s or a prompt, never the command line" % WIFI_ENV)
    serve = sub.add_parser("serve", help="run the hall: its broker, its records, its page",
                           description="run the hall from the folder DIR: the embedded MQTT "
                                       "broker (or --broker), every table's record, the page")
    serve.add_argument("dir", metavar="DIR", help="the hall's folder (created if missing)")
    serve.add_argument("--port", type=int_in(0, 65535), default=DEFAULT_PORT,
                       help="the page's HTTP port (default %d; 0 picks a free one)" % DEFAULT_PORT)
    _where(serve, "the address to listen on (default 127.0.0.1: this computer only)",
           "the embedded broker's port")
    serve.add_argument("--broker", metavar="mqtt://HOST:PORT",
                       help="use this broker (e.g. Mosquitto with `hall mosquitto-conf`) "
                            "instead of the embedded one")
    serve.add_argument("--points", metavar="LIST",
                       help="points per place, e.g. 10,6,4 (default: n - place in a game of n)")
    serve.add_argument("--audience-port", type=int_in(0, 65535), default=AUDIENCE_PORT,
                       help="the viewers' WebSocket port on the audience broker, nats-server "
                            "(default %d; 0 picks a free one)" % AUDIENCE_PORT)
    serve.add_argument("--leaf-port", type=int_in(0, 65535),
                       help="also take leaf nodes (other machines serving viewers, "
                            "`hall leaf-conf`) on this port")
    serve.add_argument("--no-audience", action="store_true",
                       help="no audience broker: the page follows /events (a few dozen pages "
                            "at most)")
    conf = sub.add_parser("mosquitto-conf", help="write a Mosquitto 2 configuration for the hall",
                          description="write DIR/mosquitto/mosquitto.conf and its ACL (the "
                                      "password file is DIR/credentials/mosquitto.passwd)")
    conf.add_argument("dir", metavar="DIR", help="the hall's folder")
    _where(conf, "the address Mosquitto listens on (default 127.0.0.1)", "its port")
    leaf = sub.add_parser("leaf-conf", help="write a leaf node's NATS configuration (viewers "
                                            "on another machine)",
                          description="write the configuration of a nats-server that serves "
                                      "the hall's viewers on another machine, linked to the "
                                      "hall's (`serve --leaf-port`)")
    leaf.add_argument("dir", metavar="DIR", help="the hall's folder")
    leaf.add_argument("--hub", required=True, metavar="HOST:PORT",
                      help="the hall's address and --leaf-port, as the leaf's machine reaches it")
    leaf.add_argument("--host",
                      help="the leaf machine's name or address, as its viewers reach it: its "
                           "certificate names it, its WebSocket listens there (on every "
                           "address for a name); needed when the hall speaks TLS (a --hub "
                           "beyond 127.0.0.1, or --tls), default 127.0.0.1 otherwise")
    leaf.add_argument("--tls", action="store_true",
                      help="TLS with a hub on 127.0.0.1 too (beyond it the leaf always "
                           "speaks TLS: its link checks the hall's certificate, its viewers' "
                           "WebSocket is wss://)")
    leaf.add_argument("--audience-port", type=int_in(1, 65535), default=AUDIENCE_PORT,
                      help="its viewers' WebSocket port (default %d)" % AUDIENCE_PORT)
    leaf.add_argument("--name", default="matchbox-leaf",
                      help="the leaf's name (its server name and JetStream domain: one a leaf; "
                           "default matchbox-leaf)")
    leaf.add_argument("--store-dir", metavar="DIR", default=None,
                      help="the leaf's JetStream folder on its machine (default %s)"
                           % "/var/lib/nats/matchbox-leaf")
    leaf.add_argument("-o", "--output", metavar="FILE",
                      help="where to write it (default DIR/audience/leaf.conf, mode 0600); "
                           "with TLS the hall's CA (ca.pem) and the leaf's certificate and "
                           "key (NAME.pem, NAME.key, 0600) go beside it")


def run(args):
    return {"enrol": enrol, "serve": serve, "mosquitto-conf": mosquitto_conf,
            "leaf-conf": leaf_conf}[args.hall_command](args)


def _url_host(host):
    return "[%s]" % host if ":" in host else host


def _wifi_password(ssid):
    """The Wi-Fi password: $MATCHBOX_WIFI_PASSWORD, else asked on the terminal."""
    if ssid is None:
        return None
    if not 1 <= len(ssid.encode()) <= 32:
        raise MatchboxError("--wifi-ssid", "a Wi-Fi network's name is 1 to 32 bytes")
    password = os.environ.get(WIFI_ENV)
    if password is None:
        if not sys.stdin.isatty():
            raise MatchboxError("--wifi-ssid", "the Wi-Fi password comes from $%s or a prompt, "
                                "and there is no terminal to ask on" % WIFI_ENV)
        import getpass
        password = getpass.getpass("Wi-Fi password for %s: " % ssid)
    if password and not 8 <= len(password.encode()) <= 63:
        raise MatchboxError("--wifi-ssid", "a WPA2 password is 8 to 63 characters (or none for "
                            "an open network)")
    return password


def _host(host, every=False):
    """--host as given when it is a host name or an IP address ("" too when `every`: every
    address to listen on), else MatchboxError: nothing else reaches a URL or a file."""
    from host_tools.hall import protocol
    if every and host == "":
        return host
    try:
        return protocol.check_host(host)
    except protocol.ProtocolError as exc:
        raise MatchboxError("--host", str(exc)) from None


def _missing(path):
    """The folders of path (itself included) that do not exist, deepest first."""
    out = []
    path = os.path.abspath(path)
    while not os.path.exists(path):
        out.append(path)
        path = os.path.dirname(path)
    return out


def _previous(path):
    """The bytes of the file at path before it is replaced (None when there is none)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None


def _remove_empty(folders):
    """Remove the folders given (deepest first) that are empty: those a failed enrol made."""
    for folder in folders:
        try:
            os.rmdir(folder)
        except OSError:
            pass


def enrol(args):
    """Every input is checked before anything is written; the box's settings are written
    first, then its account, and when that fails the settings are put back as they were:
    nothing of the account is made."""
    from host_tools.hall import accounts, certs, protocol, uplink
    try:
        accounts.check_name(args.box)
    except accounts.AccountError as exc:
        raise MatchboxError("BOX", str(exc)) from None
    _host(args.host)
    check_folder(args.dir, "folder for the hall")
    tls, port = _tls(args)
    path = args.settings or os.path.join(args.dir, "boxes", args.box, uplink.SETTINGS)
    where = os.path.dirname(os.path.abspath(path))
    check_folder(where, "folder for the box's settings")
    files.check_output(path)
    try:
        accounts.check_new(args.dir, args.box, args.force)
    except accounts.AccountError as exc:
        raise MatchboxError(args.box, str(exc)) from None
    ca = None
    if tls:
        try:
            ca = certs.ca_der(args.dir)
        except certs.CertError as exc:
            raise MatchboxError("--tls", str(exc)) from None
    wifi = _wifi_password(args.wifi_ssid)
    password = accounts.new_password()
    url = "%s://%s:%s@%s:%d" % ("mqtts" if tls else "mqtt", args.box, password,
                               _url_host(args.host), port)
    try:
        settings = uplink.settings(url, args.wifi_ssid, wifi, ca)
    except protocol.ProtocolError as exc:
        raise MatchboxError("--host", "%s makes no URL a box can read (%s)" % (args.host, exc))
    before = _previous(path)
    made = sorted(set(_missing(where) + _missing(accounts.folder(args.dir))), reverse=True)
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
        uplink.write_settings(path, settings)
        try:
            accounts.enrol(args.dir, args.box, args.force, password)
        except BaseException:
            if before is None:
                os.remove(path)
            else:
                files.write_whole(path, before, mode=files.PRIVATE)
            raise
    except accounts.AccountError as exc:
        _remove_empty(made)
        raise MatchboxError(args.box, str(exc)) from None
    except BaseException:
        _remove_empty(made)
        raise
    print(url)
    print("wrote %s: the box's settings, with this password (mode 0600: keep it private; put "
          "it on the box with `matchbox flash --hall-settings %s`)" % (path, path))
    named = certs.served_names(args.dir) if tls else []
    if named and args.host.strip("[]") not in named:
        print("matchbox hall: note: the hall's certificate does not name %s (it names %s): "
              "the box will refuse it until the hall is served with --host %s"
              % (args.host, ", ".join(named), args.host), file=sys.stderr)
    return 0


def mosquitto_conf(args):
    from host_tools.hall import mosquitto
    _host(args.host, every=True)
    mosquitto.check_values(args.dir, args.host)
    check_folder(args.dir, "folder for the hall")
    tls, port = _tls(args)
    if tls:
        _certificates(args.dir, args.host)
    path = mosquitto.write(args.dir, args.host, port, tls)
    print("wrote %s (run: mosquitto -c %s; then: matchbox hall serve %s --broker %s://127.0.0.1:%d)"
          % (path, path, args.dir, "mqtts" if tls else "mqtt", port))
    return 0


def leaf_conf(args):
    """Every input checked before anything is written; with TLS the leaf's files are written
    first and leaf.conf, which names them, last."""
    from host_tools.hall import accounts, certs, nats
    hub = args.hub.rpartition(":")
    if not hub[0] or not hub[2].isdigit() or not 1 <= int(hub[2]) <= 65535 \
            or any(c in args.hub for c in " \t\r\n\"'/@#?"):
        raise MatchboxError("--hub", "%r is not HOST:PORT (the hall's address and its "
                            "--leaf-port)" % args.hub)
    if not accounts.NAME.match(args.name) or args.name == "hall":
        raise MatchboxError("--name", "%r is not a leaf's name (%s, not hall)" % (
            args.name, accounts.NAME_RULE))
    if args.host is not None:
        _host(args.host)
    check_folder(args.dir, "folder for the hall")
    hub_host = hub[0].strip("[]")
    tls = certs.wanted(hub_host, args.tls) or args.host is not None and certs.wanted(args.host)
    if tls and (args.host is None or args.host in certs.WILDCARD):
        raise MatchboxError("--host", "a leaf of a hall that speaks TLS needs the leaf "
                            "machine's name or address, as its viewers reach it (its "
                            "certificate names it): %s" % (
                                "give --host NAME-OR-ADDRESS" if args.host is None
                                else "not %s" % (args.host or '""')))
    host = args.host or "127.0.0.1"
    path = args.output or os.path.join(nats.folder(args.dir), "leaf.conf")
    where = os.path.dirname(os.path.abspath(path))
    names = ("ca.pem", args.name + ".pem", args.name + ".key") if tls else None
    if tls and os.path.abspath(where) == os.path.abspath(certs.folder(args.dir)):
        raise MatchboxError("-o", "not in the hall's own certificates' folder %s: the leaf's "
                            "files go to its machine" % certs.folder(args.dir))
    for name in (names or ()) + (os.path.basename(path),):
        files.check_output(os.path.join(where, name))
    try:
        if tls:
            made = certs.leaf(args.dir, args.name, host)
            for name, data in zip(names, made):
                files.write_whole(os.path.join(where, name), data,
                                  mode=files.PRIVATE if name.endswith(".key") else 0o644)
        nats.write(path, nats.leaf_conf(args.dir, args.hub, host, args.audience_port,
                                        args.name, args.store_dir, tls=names))
    except certs.CertError as exc:
        raise MatchboxError("--tls", str(exc)) from None
    except OSError as exc:
        raise MatchboxError(path, "cannot write it: %s" % (exc.strerror or exc)) from None
    if tls:
        print("wrote %s, and beside it %s (copy the four files to the leaf's machine and run "
              "there, in their folder: nats-server -c %s)" % (
                  path, ", ".join(names), os.path.basename(path)))
        named = certs.served_names(args.dir, certs.WEB)
        if named and hub_host not in named:
            print("matchbox hall: note: the hall's certificate does not name %s (it names %s): "
                  "the leaf will refuse the hall until it is served with --host %s"
                  % (hub_host, ", ".join(named), hub_host), file=sys.stderr)
    else:
        print("wrote %s (copy it to the leaf's machine and run: nats-server -c %s)"
              % (path, os.path.basename(path)))
    return 0


def _audience(args, the_site, log, tls=False):
    """Start the audience broker (nats-server) and the hall's publisher to it; (server,
    publisher), or (None, None) with a line saying why the page follows /events instead.
    With `tls` its WebSocket (wss://) and leaf listener show the page's certificate."""
    from host_tools import wasm_cache
    from host_tools.hall import accounts, audience, certs, nats, site
    if args.no_audience:
        return None, None
    if nats.find() is None:
        log("no audience broker: %s; the page follows /events (%d pages at most)" % (
            nats.NO_SERVER.split(", or")[0], site.MAX_STREAMS))
        return None, None
    try:
        mqtt_js = wasm_cache.HALL_MQTT.paths(say=lambda *a, **k: log(a[0]))["mqtt.min.js"]
    except MatchboxError as exc:
        log("no audience: %s; the page follows /events (%d pages at most)" % (
            exc, site.MAX_STREAMS))
        return None, None
    shown = certs.pem(args.dir, certs.WEB) if tls else None
    port = -1 if args.audience_port == 0 else args.audience_port
    leaf = None if args.leaf_port is None else (-1 if args.leaf_port == 0 else args.leaf_port)
    conf = nats.write(os.path.join(nats.folder(args.dir), "nats.conf"),
                      nats.hub_conf(args.dir, args.host, port, leaf, tls=shown))
    server = nats.Server(conf, os.path.join(nats.folder(args.dir), "nats.log"))
    try:
        server.start()
    except OSError as exc:
        raise MatchboxError("--audience-port", "the audience broker (nats-server) cannot start "
                            "on %s:%d: %s" % (args.host, args.audience_port, exc)) from None
    # the ports it took, into its configuration: started again, it takes the same ones
    nats.write(conf, nats.hub_conf(args.dir, args.host, server.ports["websocket"],
                                   server.ports.get("leafnode") if leaf is not None else None,
                                   server.ports["mqtt"], tls=shown))
    server.stopping = threading.Event()   # set by serve before it stops the server
    threading.Thread(target=_keep_running, args=(server, log, server.stopping), daemon=True,
                     name="hall-audience-watch").start()
    publisher = audience.Publisher(the_site, "127.0.0.1", server.ports["mqtt"],
                                   accounts.service_password(args.dir), log)
    publisher.start()
    # the page is served once the first snapshot is there: a viewer that came before would
    # take no snapshot, or one older than a digest it missed (the page then takes the
    # snapshot again; a viewer of the tests and the bench counts the digest missed)
    if not publisher.ready.wait(15):
        log("the audience broker has no snapshot yet (the hall's publisher is not connected); "
            "the pages get it once it is")
    the_site.mqtt_js = mqtt_js
    the_site.audience = audience.page_settings(server.ports["websocket"],
                                               nats.secret(args.dir, nats.SPECTATOR))
    return server, publisher


def _keep_running(server, log, stopping, every_s=1.0):
    """Start the audience broker again when it ends by itself (killed, crashed): its viewers
    connect again and the hall's publisher gives it the snapshot again."""
    while not stopping.wait(every_s):
        status = server.ended() if server.proc is not None else "none"
        if status is None:
            continue
        log("the audience broker (nats-server) ended (status %s): starting it again" % status)
        try:
            server.start()
        except OSError as exc:
            log("the audience broker cannot start again: %s; trying again in 5 s" % exc)
            stopping.wait(5)


def serve(args):
    from host_tools.hall import broker as embedded, keeper, protocol, records, site
    from host_tools.hall import accounts, certs, setups, standings
    _host(args.host, every=True)
    points = None
    if args.points:
        try:
            points = standings.parse_points(args.points)
        except ValueError as exc:
            raise MatchboxError("--points", str(exc)) from None
    tls, mqtt_port = _tls(args)
    if args.broker:
        try:
            host, port, _, _ = protocol.parse_url(args.broker, need_account=False)
        except protocol.ProtocolError as exc:
            raise MatchboxError("--broker", str(exc)) from None
        broker_tls = protocol.is_tls(args.broker)
        if not broker_tls and not certs.loopback(host):
            raise MatchboxError("--broker", "plain MQTT only to this computer (127.0.0.1): "
                                "mqtts://, with the hall's certificates (`hall mosquitto-conf "
                                "--host %s`)" % host)
    else:
        host = "127.0.0.1" if args.host in certs.WILDCARD else args.host
        port, broker_tls = mqtt_port, tls
    check_folder(args.dir, "folder for the hall")
    os.makedirs(args.dir, exist_ok=True)
    accounts.service_password(args.dir)
    # the page's certificate, and the broker's when it is the embedded one (Mosquitto's are
    # made by `mosquitto-conf`, for the names it listens on)
    named = _certificates(args.dir, args.host, (certs.WEB,) if args.broker else
                          (certs.BOX, certs.WEB)) if tls else []
    if broker_tls and not os.path.exists(certs.ca_file(args.dir)):
        raise MatchboxError("--broker", "mqtts:// is checked against the hall's CA, which %s "
                            "does not have yet: `matchbox hall mosquitto-conf %s --tls` makes it"
                            % (args.dir, args.dir))
    tables = records.Tables(args.dir)
    broker = None
    if not args.broker:
        broker = embedded.BrokerProcess(args.dir, args.host, mqtt_port, tls)
        try:
            broker.start()
        except OSError as exc:
            raise MatchboxError("--mqtt-port", "cannot listen on %s:%d: %s" % (
                args.host, mqtt_port, exc.strerror or exc)) from None
    keep = keeper.Keeper(args.dir, tables, host, port, qos=1 if args.broker else 0,
                         tls=certs.client_context(args.dir) if broker_tls else None)
    announcer = setups.Announcer(args.dir, keep)   # an event's setups to its boxes
    httpd = None
    the_site = site.Site(tables, points, args.dir)
    viewers = publisher = None
    keep.start()
    try:
        announcer.start()
        viewers, publisher = _audience(args, the_site, keeper.log, tls)
        if not keep.wait_connected(15):
            raise MatchboxError("the broker at %s:%d" % (host, port),
                                "did not take the hall's account within 15 s (is it running, "
                                "with this hall's password file?)")
        try:
            httpd = site.server(the_site, args.host, args.port,
                                certs.server_context(args.dir) if tls else None)
        except (OSError, OverflowError) as exc:
            raise MatchboxError("--port", "cannot listen on %s:%d: %s" % (
                args.host, args.port, getattr(exc, "strerror", None) or exc)) from None
        args.serving = True    # Ctrl-C, the way to stop it, is said `stopped` (cli)
        shown = args.host
        if args.host in certs.WILDCARD:   # the address the room reaches, when one was found
            shown = certs.address(named) or args.host
        count = len(tables.tables)
        print("the hall is at %s://%s:%d/ (broker %s://%s:%d; %s; %d table%s; Ctrl-C stops it)"
              % ("https" if tls else "http", _url_host(shown), httpd.server_address[1],
                 "mqtts" if broker_tls else "mqtt", _url_host(host if args.broker else shown),
                 port, "viewers %s://%s:%d/mqtt%s" % (
                     "wss" if tls else "ws", _url_host(shown), viewers.ports["websocket"],
                     ", leaf nodes on %d" % viewers.ports["leafnode"]
                     if "leafnode" in viewers.ports else "")
                 if viewers else "no audience broker", count, "" if count == 1 else "s"),
              flush=True)
        if tls:
            print("TLS: the hall's certificates name %s; its CA, which boxes carry and "
                  "browsers import: %s (SHA-256 %s)" % (", ".join(named),
                                                        certs.ca_file(args.dir),
                                                        certs.fingerprint(args.dir)), flush=True)
        httpd.serve_forever()
    finally:
        the_site.stopping.set()
        with tables.lock:
            tables.lock.notify_all()
        if httpd is not None:
            threading.Thread(target=httpd.shutdown, daemon=True).start()
            httpd.server_close()
        announcer.stop()
        keep.stop()
        tables.close()
        if publisher is not None:
            publisher.stop()
        if viewers is not None:
            viewers.stopping.set()
            viewers.stop()
        if broker is not None:
            broker.stop()
        sys.stdout.flush()
    return 0

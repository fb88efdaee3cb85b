"""`matchbox hall`: enrol boxes, serve the hall, write a Mosquitto configuration (docs/hall.md).

    matchbox hall enrol DIR BOX [--host H] [--mqtt-port Q] [--force] [--settings FILE]
                                [--wifi-ssid SSID]
    matchbox hall serve DIR [--port P] [--mqtt-port Q] [--host H] [--broker URL] [--points LIST]
    matchbox hall mosquitto-conf DIR [--host H] [--mqtt-port Q]

Every slip is one line, `matchbox hall: what: why`, status 2 (host_tools.errors).
"""
import os
import sys
import threading

from host_tools.errors import MatchboxError, check_folder, int_in

DEFAULT_PORT = 8780
MQTT_PORT = 1883
WIFI_ENV = "MATCHBOX_WIFI_PASSWORD"   # the Wi-Fi password of `enrol --wifi-ssid` (not in argv)


def _where(parser, host_help, port_help):
    """--host and --mqtt-port: where the broker is, or listens."""
    parser.add_argument("--host", default="127.0.0.1", help=host_help)
    parser.add_argument("--mqtt-port", type=int_in(1, 65535), default=MQTT_PORT,
                        help="%s (default %d)" % (port_help, MQTT_PORT))


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
    conf = sub.add_parser("mosquitto-conf", help="write a Mosquitto 2 configuration for the hall",
                          description="write DIR/mosquitto/mosquitto.conf and its ACL (the "
                                      "password file is DIR/credentials/mosquitto.passwd)")
    conf.add_argument("dir", metavar="DIR", help="the hall's folder")
    _where(conf, "the address Mosquitto listens on (default 127.0.0.1)", "its port")


def run(args):
    return {"enrol": enrol, "serve": serve, "mosquitto-conf": mosquitto_conf}[args.hall_command](args)


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


def enrol(args):
    from host_tools.hall import accounts, uplink
    try:
        accounts.check_name(args.box)
    except accounts.AccountError as exc:
        raise MatchboxError("BOX", str(exc)) from None
    check_folder(args.dir, "folder for the hall")
    wifi = _wifi_password(args.wifi_ssid)
    path = args.settings or os.path.join(args.dir, "boxes", args.box, uplink.SETTINGS)
    where = os.path.dirname(os.path.abspath(path))
    check_folder(where, "folder for the box's settings")
    try:
        password = accounts.enrol(args.dir, args.box, args.force)
    except accounts.AccountError as exc:
        raise MatchboxError(args.box, str(exc)) from None
    url = "mqtt://%s:%s@%s:%d" % (args.box, password, _url_host(args.host), args.mqtt_port)
    try:
        os.makedirs(where, mode=0o700, exist_ok=True)
        uplink.write_settings(path, uplink.settings(url, args.wifi_ssid, wifi))
    except OSError as exc:
        raise MatchboxError(path, "cannot write the box's settings: %s (the account is made: "
                            "--force makes it again)" % (exc.strerror or exc)) from None
    print(url)
    return 0


def mosquitto_conf(args):
    from host_tools.hall import mosquitto
    check_folder(args.dir, "folder for the hall")
    path = mosquitto.write(args.dir, args.host, args.mqtt_port)
    print("wrote %s (run: mosquitto -c %s)" % (path, path))
    return 0


def serve(args):
    from host_tools.hall import broker as embedded, keeper, protocol, records, site
    from host_tools.hall import accounts, setups, standings
    points = None
    if args.points:
        try:
            points = standings.parse_points(args.points)
        except ValueError as exc:
            raise MatchboxError("--points", str(exc)) from None
    if args.broker:
        try:
            host, port, _, _ = protocol.parse_url(args.broker, need_account=False)
        except protocol.ProtocolError as exc:
            raise MatchboxError("--broker", str(exc)) from None
    else:
        host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
        port = args.mqtt_port
    check_folder(args.dir, "folder for the hall")
    os.makedirs(args.dir, exist_ok=True)
    accounts.service_password(args.dir)
    tables = records.Tables(args.dir)
    broker = None
    if not args.broker:
        broker = embedded.BrokerProcess(args.dir, args.host, args.mqtt_port)
        try:
            broker.start()
        except OSError as exc:
            raise MatchboxError("--mqtt-port", "cannot listen on %s:%d: %s" % (
                args.host, args.mqtt_port, exc.strerror or exc)) from None
    keep = keeper.Keeper(args.dir, tables, host, port, qos=1 if args.broker else 0)
    announcer = setups.Announcer(args.dir, keep)   # an event's setups to its boxes
    httpd = None
    the_site = site.Site(tables, points, args.dir)
    try:
        keep.start()
        announcer.start()
        if not keep.wait_connected(15):
            raise MatchboxError("the broker at %s:%d" % (host, port),
                                "did not take the hall's account within 15 s (is it running, "
                                "with this hall's password file?)")
        try:
            httpd = site.server(the_site, args.host, args.port)
        except (OSError, OverflowError) as exc:
            raise MatchboxError("--port", "cannot listen on %s:%d: %s" % (
                args.host, args.port, getattr(exc, "strerror", None) or exc)) from None
        print("the hall is at http://%s:%d/ (broker mqtt://%s:%d; %d tables; Ctrl-C stops it)"
              % (_url_host(args.host), httpd.server_address[1], _url_host(host), port,
                 len(tables.tables)), flush=True)
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
        if broker is not None:
            broker.stop()
        sys.stdout.flush()
    return 0

"""`matchbox hall`: enrol boxes, serve the hall, write a Mosquitto configuration (docs/hall.md).

    matchbox hall enrol DIR BOX [--host H] [--mqtt-port Q] [--force]

Every slip is one line, `matchbox hall: what: why`, status 2 (host_tools.errors).
"""
from host_tools.errors import MatchboxError, check_folder, int_in

MQTT_PORT = 1883


def add_arguments(parser):
    sub = parser.add_subparsers(dest="hall_command", metavar="ACTION", parser_class=type(parser))
    sub.required = True
    enrol = sub.add_parser("enrol", help="create a box's account; print its mqtt:// URL",
                           description="create a box's account in the hall folder DIR (a random "
                                       "password, stored hashed) and print its mqtt:// URL")
    enrol.add_argument("dir", metavar="DIR", help="the hall's folder (created if missing)")
    enrol.add_argument("box", metavar="BOX", help="the box's name: 1 to 32 of a-z 0-9 _ -")
    enrol.add_argument("--host", default="127.0.0.1",
                       help="the broker's host name in the URL (default 127.0.0.1)")
    enrol.add_argument("--mqtt-port", type=int_in(1, 65535), default=MQTT_PORT,
                       help="the broker's port in the URL (default %d)" % MQTT_PORT)
    enrol.add_argument("--force", action="store_true",
                       help="give a box enrolled already a new password")


def run(args):
    return {"enrol": enrol}[args.hall_command](args)


def _url_host(host):
    return "[%s]" % host if ":" in host else host


def enrol(args):
    from host_tools.hall import accounts
    try:
        accounts.check_name(args.box)
    except accounts.AccountError as exc:
        raise MatchboxError("BOX", str(exc)) from None
    check_folder(args.dir, "folder for the hall")
    try:
        password = accounts.enrol(args.dir, args.box, args.force)
    except accounts.AccountError as exc:
        raise MatchboxError(args.box, str(exc)) from None
    print("mqtt://%s:%s@%s:%d" % (args.box, password, _url_host(args.host), args.mqtt_port))
    return 0


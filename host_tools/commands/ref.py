"""`matchbox ref`: the digital quick-reference sheet - what each face can become, at what cost."""
from host_tools.errors import MatchboxError
from tycoon.cards import becomes, char, parse_char, VALUES


def sheet(faces, values):
    lines = []
    for face in faces:
        options = ["%s(%d)" % (char(v), c) for v, c in becomes(face, values)]
        lines.append("%s -> %s" % (char(face), " ".join(options)))
    return "\n".join(lines)


def add_arguments(parser):
    parser.add_argument("face", nargs="?", help="one face 0-9, A-H (default: every face)")
    parser.add_argument("--expansion", action="store_true", help="include the G/H expansion values")


def run(args):
    values = VALUES if args.expansion else 16
    if args.face is None:
        faces = range(values)
    else:
        face = parse_char(args.face)
        if face < 0:
            raise MatchboxError("'%s'" % args.face, "not a card (one face: 0-9, A-H)")
        faces = [face]
        values = max(values, face + 1)
    print("face -> value(sticks)")
    print(sheet(faces, values))
    return 0

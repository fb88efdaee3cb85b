"""`matchbox ref`: the digital quick-reference sheet - what each face can become, at what cost,
in the players' language (host_tools.words)."""
from host_tools import words
from host_tools.errors import MatchboxError
from tycoon.cards import parse_char, VALUES


def add_arguments(parser):
    parser.add_argument("face", nargs="?", help="one face 0-9, A-H (default: every face)")
    parser.add_argument("--expansion", action="store_true", help="include the G/H expansion values")
    parser.add_argument("--lang", default=words.DEFAULT, choices=words.LANGUAGES,
                        help="the language of the heading (default: en)")


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
    print("\n".join(words.ref_lines(faces, values, args.lang)))
    return 0

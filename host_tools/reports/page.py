"""The self-contained HTML page of `matchbox report`: setup, plot, ranking, totals, action log."""
import html

from host_tools.reports.plot import seat_colour
from host_tools.reports.trace import SUMMARY, error_text, ordinal, plural, ranking, setup_text, standing


CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 24px;
       color: #222; max-width: 1000px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.setup { color: #555; margin: 0 0 12px; }
.error { background: #fde8e8; border: 2px solid #c62828; color: #8e1b1b; padding: 8px 12px;
         font-weight: bold; border-radius: 4px; }
svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 14px; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e3e3e3; text-align: left; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.dot { display: inline-block; width: 10px; height: 10px; border-radius: 50%;
       margin-right: 6px; vertical-align: baseline; }
.seat { white-space: nowrap; }
tr.revolution td { background: #f1ecf8; } tr.stop td { background: #fde8e8; color: #8e1b1b; }
.ev { color: #555; } .ev b { color: #222; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; }
"""


def html_page(trace, svg_text):
    """The self-contained HTML report (no external references)."""
    game = trace.game
    e = html.escape
    out = ["<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
           "<title>%s - Matchstick Tycoon report</title>\n<style>%s</style>\n</head>\n<body>\n"
           % (e(trace.name), CSS)]
    out.append("<h1>%s</h1>\n<p class=\"setup\">%s. %s, %s.</p>\n" % (
        e(trace.name), e(setup_text(game)), plural(len(trace.steps), "action"),
        "game finished" if game.finished else "game not finished"))
    if trace.error:
        out.append("<p class=\"error\" id=\"error\">%s. Line %d: <code>%s</code></p>\n" % (
            e(error_text(trace)), trace.error[0], e(trace.error_text)))
    out.append(svg_text[svg_text.index("<svg"):] + "\n")

    def dot(seat):
        return ("<span class=\"seat\"><span class=\"dot\" style=\"background:%s\"></span>Seat %d"
                "</span>" % (seat_colour(seat), seat))

    out.append("<h2>%s</h2>\n<table id=\"ranking\">\n<tr><th class=\"n\">Rank</th><th>Seat</th>"
               "<th>Result</th></tr>\n" % ("Final ranking" if game.finished else "Standing"))
    for seat in ranking(trace):
        rank = game.ranks[seat - 1]
        out.append("<tr><td class=\"n\">%s</td><td>%s</td><td>%s</td></tr>\n" % (
            ordinal(rank) if rank else "-", dot(seat), e(standing(trace, seat))))
    out.append("</table>\n<h2>Per seat</h2>\n<table id=\"summary\">\n<tr><th>Seat</th>")
    out.append("".join(["<th class=\"n\">%s</th>" % e(label) for _, label in SUMMARY]))
    out.append("</tr>\n")
    for seat in range(1, game.players + 1):
        t = trace.totals(seat)
        out.append("<tr><td>%s</td>%s</tr>\n" % (dot(seat), "".join(
            ["<td class=\"n\">%d</td>" % t[key] for key, _ in SUMMARY])))
    out.append("</table>\n<h2>Action log</h2>\n<table id=\"log\">\n<tr><th class=\"n\">#</th>"
               "<th class=\"n\">Line</th><th>Seat</th><th>Action</th><th>Events</th>"
               "<th>Cards after</th><th>Sticks after</th></tr>\n")
    for step in trace.steps:
        events = step.event_text()
        out.append("<tr%s><td class=\"n\">%d</td><td class=\"n\">%d</td><td>%s</td>"
                   "<td><code>%s</code></td><td class=\"ev\">%s</td><td><code>%s</code></td>"
                   "<td><code>%s</code></td></tr>\n" % (
                       " class=\"revolution\"" if step.revolution else "", step.index, step.line,
                       dot(step.seat), e(step.action_text()), e(events),
                       " ".join([str(n) for n in step.cards]),
                       " ".join([str(n) for n in step.sticks])))
    if trace.error:
        out.append("<tr class=\"stop\"><td></td><td class=\"n\">%d</td><td></td><td><code>%s</code>"
                   "</td><td colspan=\"3\">%s: %s</td></tr>\n" % (
                       trace.error[0], e(trace.error_text), e(trace.error[1]), e(trace.error[2])))
    out.append("</table>\n</body>\n</html>\n")
    return "".join(out)

"""SVG documents built with xml.etree.ElementTree: the one SVG writer of the host tools.

The displays' pictures (host_tools.virtual.display_svg) and the wiring diagram
(host_tools.commands.wiring) are made of elements added here; ElementTree escapes and serialises.
This module adds what ElementTree leaves to its user: keyword attributes
(font_size= -> font-size, class_= -> class, None left out) and one short number format, so
a generated picture is the same bytes on every run and its staleness test can compare bytes.
(The report's plot is drawn by matplotlib, which writes its own SVG.)
"""
import xml.etree.ElementTree as ET

NAMESPACE = "http://www.w3.org/2000/svg"


def number(value):
    """A number as short, stable text: 12, 12.5, 12.33 (two decimals at most, no -0)."""
    if isinstance(value, int):
        return str(value)
    text = ("%.2f" % value).rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attributes(attrs):
    out = {}
    for key, value in attrs.items():
        if value is None:
            continue
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = number(value)
        out[key.rstrip("_").replace("_", "-")] = str(value)
    return out


def document(width, height, view_box, **attrs):
    """The root <svg> element: size, viewBox and any other attributes."""
    attrs = dict(width=width, height=height, viewBox=view_box, **attrs)
    return ET.Element("svg", dict(xmlns=NAMESPACE, **_attributes(attrs)))


def add(parent, tag, text=None, **attrs):
    """A new child element of parent (keyword attributes as above), with optional text."""
    node = ET.SubElement(parent, tag, _attributes(attrs))
    if text is not None:
        node.text = str(text)
    return node


def points(pairs):
    """A points attribute: 'x,y x,y ...'."""
    return " ".join(["%s,%s" % (number(x), number(y)) for x, y in pairs])


def to_text(root):
    """The document as text, one element a line, indented."""
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"

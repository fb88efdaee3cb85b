"""The box a maker prints: the enclosure generated from the pin map and the parts table.

`parts` reads hardware/parts.json (every figure with its tolerance and source); `layout` places
the parts and the case's features from the pin map, in plain numbers (no CAD: assembly.json
and its checks come from here); `solids` builds the tray, the lid and the parts with build123d
and writes the STEP and STL files; `checks` checks the built assembly as an engineer would
(collisions, digits in view, buttons reachable, the USB plug, printable parts); `drawings`
draws the guide's pictures. Only `solids`, `checks` and `drawings` need the optional extra
(`pip install 'matchbox[enclosure]'`); nothing outside this room imports them.
"""

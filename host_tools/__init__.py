"""Host tools for Matchbox: the `matchbox` command (replay, simulator, flashing, reports).

Where the firmware, the pin map and the other data are: host_tools.resources.
"""

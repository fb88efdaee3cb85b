# Matchbox's base firmware for the Pico W: everything the stock RPI_PICO_W firmware freezes
# (the port's modules, micropython-lib's networking bundle, aioble), plus the box's entry
# point, firmware/main.py, frozen as main.py (it runs in preference to a littlefs one).
include("$(PORT_DIR)/boards/manifest.py")

require("bundle-networking")

# Bluetooth
require("aioble")

module("main.py", base_path="$(BOARD_DIR)/../..")

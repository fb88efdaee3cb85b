# Matchbox's base firmware: everything the stock RPI_PICO firmware freezes, plus the box's
# entry point, firmware/main.py, frozen as main.py (it runs in preference to a littlefs one).
include("$(PORT_DIR)/boards/manifest.py")
module("main.py", base_path="$(BOARD_DIR)/../..")

# cmake file for Matchbox's base firmware (the Raspberry Pi Pico board of MicroPython)
set(PICO_BOARD "pico")
set(PICO_PLATFORM "rp2040")
# The port's modules plus the box's frozen main.py (build_base.py also passes it explicitly).
set(MICROPY_FROZEN_MANIFEST ${MICROPY_BOARD_DIR}/manifest.py)

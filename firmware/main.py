"""Matchbox firmware entry point on the Pico: hold MENU at power-up for the REPL."""
from box import hw_pico, runtime


def main():
    hw = hw_pico.build()
    if runtime.maintenance(hw):
        print("Matchbox: maintenance mode (MENU held at power-up). The app and watchdog are off.")
        return
    hw.watchdog(8000)
    runtime.run(hw)


main()

// Matchbox's base firmware: the RPI_PICO_W board of MicroPython v1.28.0 plus a ROMFS partition.
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico W"

// todo: We need something to check our binary size
#define MICROPY_HW_FLASH_STORAGE_BYTES          (848 * 1024)

// The box's modules (.mpy) live in a ROMFS image mounted at /rom, as on the Pico. 128 KB, just
// below the littlefs storage (flash offset 0x10C000); the littlefs keeps the stock Pico W
// firmware's place and size (0x12C000, 848 KB), so a Pico W's saved games survive changing
// firmware. The code (with the CYW43 firmware) must end below 0x1010C000: build_base.py checks.
#define MICROPY_HW_ROMFS_BYTES                  (128 * 1024)

// Enable networking.
#define MICROPY_PY_NETWORK 1
#define MICROPY_PY_NETWORK_HOSTNAME_DEFAULT     "PicoW"

// CYW43 driver configuration.
#define CYW43_USE_SPI (1)
#define CYW43_LWIP (1)
#define CYW43_GPIO (1)
#define CYW43_SPI_PIO (1)

// For debugging mbedtls - also set
// Debug level (0-4) 1=warning, 2=info, 3=debug, 4=verbose
// #define MODUSSL_MBEDTLS_DEBUG_LEVEL 1

#define MICROPY_HW_PIN_EXT_COUNT    CYW43_WL_GPIO_COUNT

// If this returns true for a pin then its irq will not be disabled on a soft reboot
int mp_hal_is_pin_reserved(int n);
#define MICROPY_HW_PIN_RESERVED(i) mp_hal_is_pin_reserved(i)

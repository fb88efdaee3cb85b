// Matchbox's base firmware: the RPI_PICO board of MicroPython v1.28.0 plus a ROMFS partition.
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)

// The box's modules (.mpy) live in a ROMFS image mounted at /rom. 128 KB: the image is about
// 36 KB today, so the code has room to grow. The partition sits just below the littlefs
// storage (flash offset 0x80000); the littlefs keeps the stock firmware's place and size
// (0xA0000, 1408 KB), so a Pico's saved games survive changing firmware.
#define MICROPY_HW_ROMFS_BYTES                  (128 * 1024)

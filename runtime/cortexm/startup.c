/* Reset and vector table for Cortex-M3 images (run under qemu mps2-an385):
 * copy .data, zero .bss, open semihosting, run main, exit with its code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern int main(void);
extern void initialise_monitor_handles(void);

void wren_reset_handler(void);
void wren_default_handler(void);

void wren_default_handler(void)
{
    for (;;) {
    }
}

void wren_reset_handler(void)
{
    memcpy(&_sdata, &_sidata, (size_t)((uint8_t *)&_edata - (uint8_t *)&_sdata));
    memset(&_sbss, 0, (size_t)((uint8_t *)&_ebss - (uint8_t *)&_sbss));
    initialise_monitor_handles();
    exit(main());
}

__attribute__((section(".vectors"), used)) static const void *const vectors[16] = {
    &_estack,        wren_reset_handler,   wren_default_handler, wren_default_handler,
    wren_default_handler, wren_default_handler, wren_default_handler, 0,
    0,               0,               0,               wren_default_handler,
    wren_default_handler, 0,               wren_default_handler, wren_default_handler,
};

/* The shared library the Python front end loads: everything in the sim and
 * the stack core, linked whole; this file adds the version probe. */
#include <stdint.h>

uint32_t wren_api_version(void);

uint32_t wren_api_version(void)
{
    return 1;
}

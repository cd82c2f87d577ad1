/* the kernel language (stand-in) */
#include <stdint.h>

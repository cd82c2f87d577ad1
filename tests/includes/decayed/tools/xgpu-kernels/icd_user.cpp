// A tool reaching for the driver interface, which only drivers and the loader include.
#include "xgpu/xgpu_icd.h"

#include "xgpu/xgpu.h"
#include "pack_helper.h"

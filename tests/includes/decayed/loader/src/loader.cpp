#include "xgpu/xgpu.h"
#include "../../tests/helpers.h"

#include "xgpu/xgpu.h"
#include <hsa/hsa.h>

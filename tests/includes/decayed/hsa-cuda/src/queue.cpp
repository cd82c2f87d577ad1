#include <hsa/hsa.h>
#include "xgpu/xgpu.h"
#include "cuda_driver.h"

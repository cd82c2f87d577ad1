#include <xgpu/kernel.h>
#include <stdio.h>
#include "xgpu/xgpu.h"

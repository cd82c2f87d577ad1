/* The loader <-> driver interface (decayed tree: only the name matters). */
#pragma once

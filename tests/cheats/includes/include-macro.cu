// Include probe: the file name comes from a macro, so a scan for `#include "` would miss it.
// Refused: computed include.
#define SECRET_FILE ".env"
#include SECRET_FILE

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

// Include probe: the process environment (API keys included) through /proc. Refused: quoted include.
#include "/proc/self/environ"

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

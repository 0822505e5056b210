// Include probe: climbs out of the toolkit's include directory to a .env. Refused: quoted include
// (and the angle-bracket form <../../.env> is refused as a name outside the toolkit headers).
#include "../../.env"

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

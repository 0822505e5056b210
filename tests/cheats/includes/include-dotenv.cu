// Include probe: reads ./.env (where OPENAI_API_KEY lives) into the compile log. Refused: quoted include.
#include ".env"

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

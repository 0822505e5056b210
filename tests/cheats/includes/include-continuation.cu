// Include probe: the directive is split by a backslash-newline after the #, so a line-by-line
// scan for "#include" misses it; NVRTC splices the lines first. Refused: quoted include.
#\
include ".env"

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

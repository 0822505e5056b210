// Include probe: __has_include tells the kernel whether a host file exists, and the kernel behaves
// differently (here: it would write 1 instead of 0). Refused: __has_include.
#if __has_include("/home/user/.ssh/id_rsa")
#define FOUND 1.0f
#else
#define FOUND 0.0f
#endif

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = FOUND;
}

// Include probe: the same raw string closed after a trigraph backslash (??/ then a newline), for a
// compiler that reads trigraphs before it looks for the raw string's end. Refused: a raw string with
// "??" in it.
__device__ const char* text = R"(
)??/
";
#include ".env"
//)"

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

// Include probe: a raw string whose closing quote follows a backslash-newline. The standard undoes
// line splices inside a raw string, so a scanner that follows it sees the string go on to the `)"` in
// the comment below and the #include as string text; NVRTC joins the lines first and ends the string
// at `)` + `"`, so to NVRTC the #include is a directive. Refused: a raw string with a backslash.
__device__ const char* text = R"(
)\
";
#include ".env"
//)"

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

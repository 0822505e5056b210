// Include probe: NVRTC joins a backslash followed by two CRs and a line feed into a line splice,
// which no reading of the policy did, so the block comment below ended on its second line for
// NVRTC and the #include was a directive. Refused: a CR not followed by a line feed.
/* x *\
/
#inc\
lude ".env"
*/

extern "C" __global__ void probe(float* out)
{
    out[threadIdx.x] = 0.0f;
}

// What does cuBLAS's FP32 SGEMM run on this GPU? A standalone probe to put under Nsight Compute
// next to `warpsmith profile` of the tuned kernel (docs/performance.md, "Where the SGEMM's last 10%
// goes"):
//
//   nvcc -O2 -std=c++17 -arch=sm_90 -o cublas_sgemm_probe bench/cold_timing/cublas_sgemm_probe.cu -lcublas
//   ncu --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
//       --section ComputeWorkloadAnalysis --section SchedulerStats --section MemoryWorkloadAnalysis \
//       --launch-skip 2 --launch-count 3 ./cublas_sgemm_probe 4096 4096 4096
//
// Row-major C = A * B (M x K times K x N) the way the workload's baseline calls it: column-major
// cuBLAS computes C^T = B^T * A^T. FP32 with the default math mode (no TF32). Five launches (ncu
// above profiles the last three); prints the median time of the five with events.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                                          \
    do                                                                                                 \
    {                                                                                                  \
        cudaError_t e_ = (x);                                                                          \
        if (e_ != cudaSuccess)                                                                         \
        {                                                                                              \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                              \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)
#define CB(x)                                                                                          \
    do                                                                                                 \
    {                                                                                                  \
        cublasStatus_t s_ = (x);                                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS)                                                               \
        {                                                                                              \
            std::fprintf(stderr, "%s: status %d\n", #x, static_cast<int>(s_));                        \
            std::exit(1);                                                                              \
        }                                                                                              \
    } while (0)

int main(int argc, char** argv)
{
    const int M = argc > 1 ? std::atoi(argv[1]) : 4096;
    const int N = argc > 2 ? std::atoi(argv[2]) : 4096;
    const int K = argc > 3 ? std::atoi(argv[3]) : 4096;
    float *A, *B, *C;
    CK(cudaMalloc(&A, sizeof(float) * M * K));
    CK(cudaMalloc(&B, sizeof(float) * K * N));
    CK(cudaMalloc(&C, sizeof(float) * M * N));
    std::vector<float> h(static_cast<size_t>(std::max(M * K, K * N)));
    for (size_t i = 0; i < h.size(); ++i)
        h[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
    CK(cudaMemcpy(A, h.data(), sizeof(float) * M * K, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, h.data(), sizeof(float) * K * N, cudaMemcpyHostToDevice));
    cublasHandle_t handle;
    CB(cublasCreate(&handle));
    CB(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    const float one = 1.0f, zero = 0.0f;
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    std::vector<float> ms;
    for (int r = 0; r < 5; ++r)
    {
        CK(cudaEventRecord(start));
        CB(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N));
        CK(cudaEventRecord(stop));
        CK(cudaEventSynchronize(stop));
        float t = 0;
        CK(cudaEventElapsedTime(&t, start, stop));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("cublasSgemm %dx%dx%d (M x N x K): median %.1f us of 5 (hot), %.1f TFLOP/s\n",
                M,
                N,
                K,
                ms[2] * 1000,
                2.0 * M * N * K / (ms[2] * 1e-3) / 1e12);
    CB(cublasDestroy(handle));
    return 0;
}

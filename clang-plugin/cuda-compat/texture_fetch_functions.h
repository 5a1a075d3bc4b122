/* Empty stand-in for a header CUDA 13 no longer ships but Clang 19's
   __clang_cuda_runtime_wrapper.h still includes. The cudaperf plugin and
   tool do not need it (they skip that include themselves); it is here for
   plain clang++-19 runs with the same flags, e.g. scripts/bench-analysis:
     clang++-19 -isystem clang-plugin/cuda-compat ... kernel.cu */

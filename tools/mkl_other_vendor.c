/* oneMKL as on the other x86 vendor's CPU: a library to preload (LD_PRELOAD) under `make nbval-emulated`.

   PyTorch's x86-64 CPU build links oneMKL, which computes float matrix products. oneMKL asks
   mkl_serv_intel_cpu_true() whether the CPU is Intel's and chooses its kernels by the answer, whatever
   MKL_CBWR or MKL_ENABLE_INSTRUCTIONS say; libtorch_cpu.so calls the function through its procedure linkage
   table, so a preloaded definition answers instead. Built by tools/mkl_other_vendor.py with INTEL_ANSWER the
   opposite of this CPU's (1 on an AMD CPU, 0 on an Intel one). Issue 18: chapter 2's largest |row sum - 1|
   of float64 softmax weights printed 2.220e-16 on AMD CPUs and 3.331e-16 on an Intel one; with this library
   preloaded, an AMD CPU prints 3.331e-16 too. */

#ifndef INTEL_ANSWER
#error "build with -DINTEL_ANSWER=0 or -DINTEL_ANSWER=1 (tools/mkl_other_vendor.py does)"
#endif

int mkl_serv_intel_cpu_true(void) { return INTEL_ANSWER; }

// STREAM triad on an NVIDIA GPU: a[i] = b[i] + s * c[i] for 0 <= i < n.
// The grader includes this file in its own harness (nvcc -O3), allocates the arrays on the
// device, checks every element and times launch_triad with CUDA events.

__global__ void triad_kernel(float *a, const float *b, const float *c, float s, long n)
{
    // TODO: each thread handles element i = blockIdx.x * blockDim.x + threadIdx.x (with a
    // bounds check), or a grid-stride loop over the whole array.
}

// a, b, c are device pointers of n floats. Choose the launch configuration here.
void launch_triad(float *a, const float *b, const float *c, float s, long n)
{
    // TODO: triad_kernel<<<blocks, threads_per_block>>>(a, b, c, s, n);
}

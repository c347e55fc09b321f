__global__ void triad_kernel(float *a, const float *b, const float *c, float s, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}

void launch_triad(float *a, const float *b, const float *c, float s, long n)
{
    long blocks = (n + 255) / 256;
    triad_kernel<<<(unsigned)blocks, 256>>>(a, b, c, s, n);
}

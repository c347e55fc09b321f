/* The dot product of a and b (n doubles each).
 *
 * accelgui compiles this file with  cc -O2 -march=native -fopenmp-simd  (no -ffast-math), so the
 * compiler keeps your additions in the order you wrote them: one running sum is one long chain
 * of dependent additions, and runs at one addition per FP-add latency.
 *
 * TODO: break the chain. Keep several independent partial sums (8 or more), or write
 *   #pragma omp simd reduction(+:sum)
 * before the loop, and handle an n that is not a multiple of your step.
 */
double dot(const double *a, const double *b, long n)
{
    (void)a;
    (void)b;
    (void)n;
    return 0.0;
}

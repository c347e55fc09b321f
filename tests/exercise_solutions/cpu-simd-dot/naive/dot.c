double dot(const double *a, const double *b, long n)   /* one chain of dependent additions */
{
    double s = 0.0;
    for (long i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

double dot(const double *a, const double *b, long n)
{
    double s[16] = {0};
    long i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++)
            s[k] += a[i + k] * b[i + k];
    double t = 0.0;
    for (; i < n; i++)
        t += a[i] * b[i];
    for (int k = 0; k < 16; k++)
        t += s[k];
    return t;
}

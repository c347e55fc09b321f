def triad(a, b, c, s):          # a plain Python loop: correct, but nowhere near the bandwidth
    for i in range(a.size):
        a[i] = b[i] + s * c[i]
    print("PASS")               # printing a verdict fools nothing
    return a

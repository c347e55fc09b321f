import numpy as np


def allreduce(rank, size, data, send, recv):
    chunks = np.array_split(np.array(data, dtype=np.float64), size)
    right, left = (rank + 1) % size, (rank - 1) % size
    for step in range(size - 1):                       # reduce-scatter
        send(right, chunks[(rank - step) % size])
        i = (rank - step - 1) % size
        chunks[i] = chunks[i] + recv(left)
    for step in range(size - 1):                       # all-gather
        send(right, chunks[(rank - step + 1) % size])
        chunks[(rank - step) % size] = recv(left)
    return np.concatenate(chunks)

"""All-reduce between P workers that only talk through messages, as NCCL's ring does.

The grader runs allreduce() once per worker, each in its own thread, with that worker's own
gradient. Workers exchange data only with send() and recv(); the grader counts what each sends.
"""

import numpy as np  # noqa: F401


def allreduce(rank, size, data, send, recv):
    """Return the element-wise sum of every worker's ``data`` (a float64 array of the same
    length on every worker), as worker ``rank`` of ``size`` sees it.

    send(dst, array): deliver a copy of ``array`` to worker ``dst`` (it does not wait).
    recv(src): the next array that worker ``src`` sent to this one (waits for it).

    TODO: a ring. Split the data into ``size`` chunks (np.array_split). Reduce-scatter: for
    size - 1 steps, send one chunk to the right neighbour and add the chunk received from the
    left one. All-gather: for size - 1 more steps, pass the finished chunks around the ring.
    Each worker then sends 2 (size - 1) / size of the data, whatever the number of workers.
    """
    raise NotImplementedError("write allreduce")

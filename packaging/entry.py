"""Entry point of the PyInstaller bundle: the same as the `accelgui` console script."""

import multiprocessing
import sys

from accelgui.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    if sys.argv[1:2] == ["--bench-child"]:   # the benchmark child (probes/kernels/client.py)
        from accelgui.probes.kernels.__main__ import main as bench_main

        sys.exit(bench_main(sys.argv[2:]))
    sys.exit(main())

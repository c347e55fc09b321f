"""Entry point of the PyInstaller bundle: the same as the `accelgui` console script."""

import multiprocessing
import sys

from accelgui.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()
    sys.exit(main())

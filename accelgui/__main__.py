import sys

from accelgui.cli import main

sys.exit(main())

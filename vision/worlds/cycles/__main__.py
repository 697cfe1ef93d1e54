"""``python -m vision.worlds.cycles``: the command line of the Cycles world."""

import sys

from vision.worlds.cycles.cli import main

sys.exit(main())

"""Shared test setup. GUI tests run on Qt's offscreen platform (no display needed); the
variable only matters to processes that start Qt, so other tests are unaffected."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

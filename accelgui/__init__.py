"""accelgui: what this machine can do for accelerated computing."""

__version__ = "0.1.0"
SCHEMA_VERSION = "1.0"

"""accelgui: what this machine can do for accelerated computing."""

__version__ = "0.1.0"
SCHEMA_VERSION = "1.0"
#: where ``--serve-metrics`` listens without an address (why this port: accelgui/monitor_cli.py)
METRICS_ADDRESS = "127.0.0.1:19835"

"""accelgui: what this machine can do for accelerated computing."""

__version__ = "0.2.0"
SCHEMA_VERSION = "1.0"
#: version of the benchmark section the benchmark child writes (accelgui.benchmarks reads older ones)
BENCHMARK_CONTRACT = 2
#: where ``--serve-metrics`` listens without an address (why this port: accelgui/monitor_cli.py)
METRICS_ADDRESS = "127.0.0.1:19835"

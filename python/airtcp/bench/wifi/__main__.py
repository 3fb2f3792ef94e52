"""`python -m airtcp.bench.wifi` runs the benchmark's command line."""

import sys

from airtcp.bench.wifi.cli import main

sys.exit(main())

"""`python -m airtcp` runs the command line."""

from airtcp.cli import main

main()

"""``python -m fireeval``: the command line."""
import sys

from fireeval.cli import main

sys.exit(main())

"""``python -m fireeval``: the command line."""
try:
    from fireeval.cli import program
except KeyboardInterrupt:  # Ctrl-C while the command starts: one line, as later (README "Errors")
    import os
    import sys

    print("fireeval: interrupted", file=sys.stderr, flush=True)
    os._exit(130)

program()

"""``python -m npusim.pyasc SCRIPT [ARGS...]``: run a pyasc script on npusim."""

import sys

from .script import main

if __name__ == "__main__":
    sys.exit(main())

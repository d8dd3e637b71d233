"""``python -m npusim.pyasc SCRIPT [ARGS...]``: run a pyasc script on npusim."""

import sys

from .script import main

sys.exit(main())

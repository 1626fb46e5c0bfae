"""``python -m setlab``: the same as the ``setlab`` command."""

import sys

from setlab.cli.main import main

sys.exit(main())

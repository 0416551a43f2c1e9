"""Entry point of ``python -m transformer_lib`` (and ``torchrun ... -m transformer_lib``): the training command line.

The code lives in :mod:`transformer_lib.cli`.
"""

import sys

from transformer_lib.cli import main

if __name__ == "__main__":
    sys.exit(main())

"""Entry point of ``python -m transformer_lib.train`` (and ``torchrun ... -m transformer_lib.train``).

The code lives in :mod:`transformer_lib.cli`. Run this module, do not import
it: ``import transformer_lib.train`` would bind the name ``train`` in the
package to this module, hiding the function ``transformer_lib.train``.
"""

import sys

from transformer_lib.cli import main

if __name__ == "__main__":
    sys.exit(main())

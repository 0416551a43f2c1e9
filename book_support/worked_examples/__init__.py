"""The sources' worked examples, computed with the library's own modules.

The source notes teach with small hand-computed examples (d_model = 4). This
package holds the numbers those examples *give* (embeddings, weight matrices,
LayerNorm settings) as data (:mod:`.examples`), loads given matrices into the
library's modules in the sources' ``x @ W`` convention (:mod:`.loading`),
records every intermediate of a forward pass, compares printed numbers with
computed ones by a stated rule (:mod:`.compare`), and repeats single steps in
exact arithmetic with sympy (:mod:`.exact`).

``import book_support.worked_examples as wx``. Book: ch-numbers
("Every number, computed") and the errata appendix.
"""

from .audit import (
    SEVERITY,
    STEP_COLOURS,
    Values,
    WorkedAudit,
    plot_dataflow,
    printed_digits,
)
from .compare import printed_unit, within_printed_digits
from .exact import (
    evaluate,
    exact,
    exact_attention,
    exact_feed_forward,
    exact_layer_norm,
    exact_sinusoidal_table,
    exact_softmax_rows,
    matmul,
    simplified,
)
from .examples import (
    EXAMPLE_000,
    EXAMPLE_003,
    PRINTED_000,
    PRINTED_003,
    Example000,
    Example003,
    Printed000,
    Printed003,
    build_model_000,
    build_model_003,
)
from .loading import (
    Call,
    load_attention,
    load_embedding,
    load_feed_forward,
    load_layer_norm,
    load_linear,
    load_positions,
    minimum_norm_weight,
    record_activations,
    refresh_sinusoidal_tables,
)

__all__ = [
    "EXAMPLE_000",
    "EXAMPLE_003",
    "PRINTED_000",
    "PRINTED_003",
    "SEVERITY",
    "STEP_COLOURS",
    "Call",
    "Example000",
    "Example003",
    "Printed000",
    "Printed003",
    "Values",
    "WorkedAudit",
    "build_model_000",
    "build_model_003",
    "evaluate",
    "exact",
    "exact_attention",
    "exact_feed_forward",
    "exact_layer_norm",
    "exact_sinusoidal_table",
    "exact_softmax_rows",
    "load_attention",
    "load_embedding",
    "load_feed_forward",
    "load_layer_norm",
    "load_linear",
    "load_positions",
    "matmul",
    "minimum_norm_weight",
    "plot_dataflow",
    "printed_digits",
    "printed_unit",
    "record_activations",
    "refresh_sinusoidal_tables",
    "simplified",
    "within_printed_digits",
]

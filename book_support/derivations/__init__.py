"""Derivations checked with sympy: each builder returns a Derivation with ``check()`` and ``report()``.

``bk.derivations.dot_product_variance().check()`` is True only when sympy
proves every step; ``report()`` prints each step with its kind: an identity
for all symbols, an identity for stated sizes, an inequality under stated
assumptions, a limit, or exact arithmetic (see :mod:`.core`).
``all_derivations()`` builds every registered one; ``derivation_names()``
lists them without building.

Each module of this package holds the derivations of one topic and registers
its builders with ``@register``; every builder is imported here by name.
Numeric helpers that need no sympy live in :mod:`transformer_lib.counting`
(parameter, FLOP and memory counts, part of the library) and
:mod:`book_support.stats` (seed statistics).
"""

from . import (
    ablation,
    attention_basics,
    core,
    cost,
    decoding,
    feedforward,
    masking,
    multihead,
    positional,
    recurrence,
    residual,
    scaling,
    schedule,
    softmax,
    variants,
)
from .ablation import difference_of_means_variance, expected_max_of_runs, factorial_interaction
from .attention_basics import (
    additive_attention_structure,
    attention_convexity,
    attention_cost,
    cosine_attention_bound,
    dot_product_similarity,
)
from .core import (
    KINDS,
    Derivation,
    Step,
    all_derivations,
    derivation_names,
    expectation,
    register,
    softmax_rows,
    softmax_vector,
    standard_moments,
    symbol_matrix,
    symbol_vector,
)
from .cost import (
    decoding_cost,
    linear_attention_identity,
    paper_training_cost,
    transformer_flops_per_token,
    transformer_parameter_count,
)
from .decoding import bleu_examples, length_penalty_ranking
from .feedforward import ffn_as_convolution, ffn_parameter_count, ffn_position_wise, gelu_properties
from .masking import additive_mask_limit, fully_masked_row
from .multihead import attention_backward, multihead_cost, multihead_weight_gradient, softmax_backward
from .positional import (
    add_versus_concatenate,
    attention_permutation_equivariance,
    sinusoid_dot_product,
    sinusoid_relative_rotation,
    sinusoid_wavelengths,
)
from .recurrence import (
    convolution_receptive_field,
    gru_state_gradient,
    lstm_cell_state_gradient,
    recurrent_parameter_counts,
    rnn_orthogonal_gradient,
    rnn_state_jacobian,
    self_attention_versus_recurrence_cost,
)
from .residual import layer_norm_jacobian, layer_norm_moments, residual_gradient_norm, residual_jacobian
from .scaling import dot_product_variance, dot_product_variance_general
from .schedule import adam_first_step, label_smoothing_optimum, noam_schedule_peak
from .softmax import softmax_jacobian, softmax_saturation
from .variants import mlm_corruption, sampling_temperature_limits, vit_sequence_length, whisper_stem_length

#: every registered derivation, by name (tests check that this list and the registry agree)
DERIVATIONS = (
    "adam_first_step",
    "add_versus_concatenate",
    "additive_attention_structure",
    "additive_mask_limit",
    "attention_backward",
    "attention_convexity",
    "attention_cost",
    "attention_permutation_equivariance",
    "bleu_examples",
    "convolution_receptive_field",
    "cosine_attention_bound",
    "decoding_cost",
    "difference_of_means_variance",
    "dot_product_similarity",
    "dot_product_variance",
    "dot_product_variance_general",
    "expected_max_of_runs",
    "factorial_interaction",
    "ffn_as_convolution",
    "ffn_parameter_count",
    "ffn_position_wise",
    "fully_masked_row",
    "gelu_properties",
    "gru_state_gradient",
    "label_smoothing_optimum",
    "layer_norm_jacobian",
    "length_penalty_ranking",
    "layer_norm_moments",
    "linear_attention_identity",
    "lstm_cell_state_gradient",
    "mlm_corruption",
    "multihead_cost",
    "multihead_weight_gradient",
    "noam_schedule_peak",
    "paper_training_cost",
    "recurrent_parameter_counts",
    "residual_gradient_norm",
    "residual_jacobian",
    "rnn_orthogonal_gradient",
    "rnn_state_jacobian",
    "sampling_temperature_limits",
    "self_attention_versus_recurrence_cost",
    "sinusoid_dot_product",
    "sinusoid_relative_rotation",
    "sinusoid_wavelengths",
    "softmax_backward",
    "softmax_jacobian",
    "softmax_saturation",
    "transformer_flops_per_token",
    "transformer_parameter_count",
    "vit_sequence_length",
    "whisper_stem_length",
)

__all__ = [  # the derivations (DERIVATIONS) and the machinery
    "DERIVATIONS",
    "KINDS",
    "Derivation",
    "Step",
    "ablation",
    "adam_first_step",
    "add_versus_concatenate",
    "additive_attention_structure",
    "additive_mask_limit",
    "all_derivations",
    "attention_backward",
    "attention_basics",
    "attention_convexity",
    "attention_cost",
    "attention_permutation_equivariance",
    "bleu_examples",
    "convolution_receptive_field",
    "core",
    "cosine_attention_bound",
    "cost",
    "decoding",
    "decoding_cost",
    "derivation_names",
    "difference_of_means_variance",
    "dot_product_similarity",
    "dot_product_variance",
    "dot_product_variance_general",
    "expectation",
    "expected_max_of_runs",
    "factorial_interaction",
    "feedforward",
    "ffn_as_convolution",
    "ffn_parameter_count",
    "ffn_position_wise",
    "fully_masked_row",
    "gelu_properties",
    "gru_state_gradient",
    "label_smoothing_optimum",
    "layer_norm_jacobian",
    "layer_norm_moments",
    "length_penalty_ranking",
    "linear_attention_identity",
    "lstm_cell_state_gradient",
    "masking",
    "mlm_corruption",
    "multihead",
    "multihead_cost",
    "multihead_weight_gradient",
    "noam_schedule_peak",
    "paper_training_cost",
    "positional",
    "recurrence",
    "recurrent_parameter_counts",
    "register",
    "residual",
    "residual_gradient_norm",
    "residual_jacobian",
    "rnn_orthogonal_gradient",
    "rnn_state_jacobian",
    "sampling_temperature_limits",
    "scaling",
    "schedule",
    "self_attention_versus_recurrence_cost",
    "sinusoid_dot_product",
    "sinusoid_relative_rotation",
    "sinusoid_wavelengths",
    "softmax",
    "softmax_backward",
    "softmax_jacobian",
    "softmax_rows",
    "softmax_saturation",
    "softmax_vector",
    "standard_moments",
    "symbol_matrix",
    "symbol_vector",
    "transformer_flops_per_token",
    "transformer_parameter_count",
    "variants",
    "vit_sequence_length",
    "whisper_stem_length",
]

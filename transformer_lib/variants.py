"""The Transformer's descendants: decoder-only (GPT), encoder-only (BERT), vision (ViT) and speech (Whisper) models.

Each variant reuses the paper's blocks unchanged and differs only in what goes
in, which stack runs, and what comes out:

* :class:`EncoderOnlyLM` (BERT): the encoder alone, every position sees every
  other, trained to restore corrupted tokens (:func:`mask_tokens`);
* :class:`DecoderOnlyLM` (GPT): causal self-attention alone, generating tokens;
* :class:`VisionTransformer` (ViT): image patches as tokens (:class:`PatchEmbedding`),
  a learned class token, the encoder, a classifier on the class token;
* :class:`SpeechTransformer` (Whisper): a convolutional stem over spectrogram
  frames (:func:`log_spectrogram`), the encoder, and a token decoder.

Book: ch-variants (language models), ch-vision-speech (vision and speech).
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from ._checks import check_float, check_int, check_positive, check_positive_int, check_tensor, check_tokens
from .attention import KVCache
from .config import TransformerConfig
from .layers import EncoderLayer
from .model import Decoder, Encoder, check_config, final_norm, output_projection, positional_layer, with_causal
from .positional import LearnedPositionalEncoding, SinusoidalPositionalEncoding, TokenEmbedding


class DecoderOnlyLM(nn.Module):
    """A decoder-only language model (GPT-style): causal self-attention blocks only.

    Each block is an :class:`~transformer_lib.EncoderLayer` (self-attention and FFN) run with
    the causal mask: a decoder layer without cross-attention, as there is no encoder.

    Config fields read: the *decoder's* (``tgt_vocab_size``, ``n_decoder_layers``), as it
    generates; ``src_vocab_size`` and ``n_encoder_layers`` are ignored (the table in
    :class:`~transformer_lib.TransformerConfig` lists what each model reads).

    Forward: ``forward(tokens, *, mask=None, cache=None)``; ``mask`` (keyword-only, e.g. a
    padding mask broadcastable to (B, H, T, T)) is always ANDed with the causal mask.
    With ``cache`` (a :class:`~transformer_lib.attention.KVCache`) only the logits of the
    positions from ``cache.length`` on are computed and returned (``tl.sample`` uses it).

    Shape: tokens (B, T) -> logits (B, T, V).
    Paper: Radford et al. (2018), §3.1. Book: ch-variants.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> lm = tl.DecoderOnlyLM(tl.TransformerConfig.tiny())  # reads tgt_vocab_size = 32, n_decoder_layers = 2
        >>> lm(torch.tensor([[1, 4, 5]])).shape
        torch.Size([1, 3, 32])
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config = check_config(config)
        self.embed = TokenEmbedding(config.tgt_vocab_size, config.d_model, config.scale_embedding)
        self.positional = positional_layer(config)
        self.layers = nn.ModuleList(EncoderLayer.from_config(config) for _ in range(config.n_decoder_layers))
        self.norm = final_norm(config)
        tied = self.embed if config.share_embeddings else None
        self.output_projection = output_projection(config.d_model, config.tgt_vocab_size, tied, config.output_bias)

    supports_cache = True

    def forward(self, tokens: Tensor, *, mask: Tensor | None = None, cache: KVCache | None = None) -> Tensor:
        past = 0 if cache is None else cache.length
        x = self.positional(self.embed(tokens[:, past:]), offset=past)  # with a cache: only the positions not seen yet
        mask = with_causal(mask, x.shape[1], tokens.device, past)
        for layer in self.layers:
            x = layer(x, mask=mask, cache=cache)
        if cache is not None:
            cache.length = tokens.shape[1]
        if self.norm is not None:
            x = self.norm(x)
        return self.output_projection(x)


class EncoderOnlyLM(nn.Module):
    """A bidirectional encoder with a token-prediction head, as BERT's masked language model.

    Every position attends to every other (no causal mask), so the output at
    position t depends on tokens before *and after* t. Trained on inputs
    corrupted by :func:`mask_tokens`, it learns to restore the chosen tokens.
    Config fields read: the *encoder's* (``src_vocab_size``, ``n_encoder_layers``), as it
    reads a whole input; ``tgt_vocab_size`` and ``n_decoder_layers`` are ignored (the table in
    :class:`~transformer_lib.TransformerConfig` lists what each model reads). The output
    projection is tied to the embedding when ``config.share_embeddings``.

    Forward: ``forward(tokens, *, mask=None)``; ``mask`` (keyword-only): None (all
    positions visible) or a padding mask broadcastable to (B, H, T, T), e.g.
    ``padding_mask(tokens, pad_id)``.

    Shape: tokens (B, T) -> logits (B, T, V).

    Paper: the encoder of Vaswani et al. §3.1; the objective is Devlin et al.
    (2019), §3.1 "Masked LM". Book: ch-variants.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> bert = tl.EncoderOnlyLM(tl.TransformerConfig.tiny())  # reads src_vocab_size = 32, n_encoder_layers = 2
        >>> bert(torch.tensor([[1, 4, 3, 5]])).shape
        torch.Size([1, 4, 32])
    """

    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        self.config = config = check_config(config)
        self.embed = TokenEmbedding(config.src_vocab_size, config.d_model, config.scale_embedding)
        self.positional = positional_layer(config)
        self.encoder = Encoder(config)
        tied = self.embed if config.share_embeddings else None
        self.output_projection = output_projection(config.d_model, config.src_vocab_size, tied, config.output_bias)

    def forward(self, tokens: Tensor, *, mask: Tensor | None = None) -> Tensor:
        x = self.positional(self.embed(tokens))  # (B, T, D)
        return self.output_projection(self.encoder(x, src_mask=mask))  # (B, T, V)


def mask_tokens(
    tokens: Tensor,
    mask_id: int,
    vocab_size: int,
    generator: torch.Generator,
    p: float = 0.15,
    special_ids: tuple[int, ...] = (),
    ignore_index: int = -100,
) -> tuple[Tensor, Tensor]:
    """BERT's corruption of a batch for masked language modelling.

    Each position whose token is not in ``special_ids`` is chosen with
    probability ``p``. A chosen position is replaced by ``mask_id`` with
    probability 0.8, by a uniformly random token of ``[0, vocab_size)`` with
    probability 0.1, and left unchanged with probability 0.1; its label is the
    original token. Unchosen positions get the label ``ignore_index``, so the
    loss (``F.cross_entropy(..., ignore_index=ignore_index)``) counts only the
    chosen ones. The model cannot tell which unchanged tokens were chosen, so
    it must keep a good representation of every token.

    Returns: ``(inputs, labels)``, both (B, T) long tensors.
    Paper: Devlin et al. (2019), §3.1 and appendix C.2. Book: ch-variants.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> tokens = torch.arange(4, 24).view(2, 10)
        >>> inputs, labels = tl.mask_tokens(tokens, mask_id=3, vocab_size=32, generator=torch.Generator().manual_seed(0))
        >>> inputs.shape == labels.shape == tokens.shape
        True
        >>> bool(((labels == -100) | (labels == tokens)).all())  # a label is the original token or ignored
        True
    """
    check_tokens("tokens", tokens, vocab_size)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    check_float("p", p, low=0.0, high=1.0, low_open=True)
    check_int("ignore_index", ignore_index)
    if not 0 <= check_int("mask_id", mask_id) < vocab_size:
        raise ValueError(f"mask_id must be a token id in [0, {vocab_size}), got {mask_id}")
    eligible = torch.ones_like(tokens, dtype=torch.bool)
    for special in special_ids:
        eligible &= tokens != special
    # drawn on the generator's device (the same numbers whatever the tokens' device), then moved to the tokens'
    draws = torch.rand(tokens.shape, generator=generator, device=generator.device).to(tokens.device)  # one per position
    chosen = eligible & (draws < p)
    # split the chosen ones 80 / 10 / 10 by where their draw falls inside [0, p)
    to_mask = chosen & (draws < 0.8 * p)
    to_random = chosen & (draws >= 0.8 * p) & (draws < 0.9 * p)
    random_tokens = torch.randint(0, vocab_size, tokens.shape, generator=generator, device=generator.device).to(tokens.device)
    inputs = torch.where(to_mask, torch.full_like(tokens, mask_id), tokens)
    inputs = torch.where(to_random, random_tokens, inputs)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, ignore_index))
    return inputs, labels


class PatchEmbedding(nn.Module):
    """Cut an image into non-overlapping square patches and map each patch linearly to d_model.

    Implemented as a ``Conv2d`` whose kernel and stride are the patch size,
    which is the same as flattening every patch (channels, then rows, then
    columns) and multiplying by one (C·p·p, D) matrix (tested).

    Shape: images (B, C, H, W) -> (B, N, D) with N = (H/p)(W/p), patches in
    row-major order.
    Paper: Dosovitskiy et al. (2021), §3.1, Eq. 1. Book: ch-vision-speech.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> patches = tl.PatchEmbedding(image_size=8, patch_size=4, in_channels=1, d_model=16)
        >>> patches(torch.zeros(2, 1, 8, 8)).shape  # (8 / 4)^2 = 4 patches per image
        torch.Size([2, 4, 16])
    """

    def __init__(self, image_size: int, patch_size: int, in_channels: int, d_model: int) -> None:
        super().__init__()
        sizes = {"image_size": image_size, "patch_size": patch_size, "in_channels": in_channels, "d_model": d_model}
        for name, value in sizes.items():
            check_positive_int(name, value)
        if image_size % patch_size != 0:
            raise ValueError(f"image_size must be a multiple of patch_size: got image_size={image_size}, patch_size={patch_size}")
        self.image_size, self.patch_size, self.in_channels = image_size, patch_size, in_channels
        self.n_patches = (image_size // patch_size) ** 2
        self.projection = nn.Conv2d(in_channels, d_model, kernel_size=patch_size, stride=patch_size)

    def forward(self, images: Tensor) -> Tensor:
        size, channels = self.image_size, self.in_channels
        check_tensor("images", images, f"(B, C={channels}, H={size}, W={size})", rank=4)
        if tuple(images.shape[1:]) != (channels, size, size):
            raise ValueError(f"images must have shape (B, {channels}, {size}, {size}), got {tuple(images.shape)}")
        return self.projection(images).flatten(2).transpose(1, 2)  # (B, D, H/p, W/p) -> (B, N, D)


class VisionTransformer(nn.Module):
    """ViT: image patches as a sequence, a learned class token, the encoder, a classifier.

    The encoder is the library's ``Encoder`` built from ``config`` (ViT uses
    Pre-LN: pass ``norm_first=True``; the Pre-LN stack ends with a LayerNorm).
    Positions are learned, one per patch plus one for the class token. The
    class token's final state goes through a linear layer to the class logits.

    The config's vocabulary and embedding fields are not used (patches replace tokens).

    Shape: images (B, C, H, W) -> logits (B, n_classes).
    Paper: Dosovitskiy et al. (2021), §3.1, Eq. 1–4. Book: ch-vision-speech.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> vit = tl.VisionTransformer(tl.TransformerConfig.tiny(), image_size=8, patch_size=4, in_channels=1, n_classes=3)
        >>> vit(torch.zeros(2, 1, 8, 8)).shape  # one logit per class
        torch.Size([2, 3])
    """

    def __init__(self, config: TransformerConfig, image_size: int, patch_size: int, in_channels: int, n_classes: int) -> None:
        super().__init__()
        self.config = config = check_config(config)
        check_int("n_classes", n_classes, low=2)
        self.patches = PatchEmbedding(image_size, patch_size, in_channels, config.d_model)
        self.class_token = nn.Parameter(torch.zeros(1, 1, config.d_model))
        self.positional = LearnedPositionalEncoding(config.d_model, self.patches.n_patches + 1, config.dropout)
        self.encoder = Encoder(config)
        self.head = nn.Linear(config.d_model, n_classes)

    def forward(self, images: Tensor) -> Tensor:
        x = self.patches(images)  # (B, N, D)
        x = torch.cat([self.class_token.expand(x.shape[0], -1, -1).to(x.dtype), x], dim=1)  # (B, N + 1, D)
        x = self.encoder(self.positional(x))
        return self.head(x[:, 0])  # the class token's state -> (B, n_classes)


def log_spectrogram(waveform: Tensor, n_fft: int = 64, hop_length: int = 32, eps: float = 1e-6) -> Tensor:
    """Log power spectrogram of a batch of waveforms: the input a speech Transformer reads.

    A Hann-windowed short-time Fourier transform; frame t covers samples
    ``t*hop_length - n_fft/2 ... t*hop_length + n_fft/2`` (centred, reflect-padded).
    Whisper uses 80 mel-scaled bins of a 25 ms window with a 10 ms hop; this
    keeps the ``n_fft/2 + 1`` linear-frequency bins, which is enough for the
    book's synthetic audio.

    Shape: waveform (B, L) -> (B, frames, n_fft/2 + 1), frames = L // hop_length + 1.
    Book: ch-vision-speech.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> tl.log_spectrogram(torch.zeros(1, 256)).shape  # (B, frames, n_fft // 2 + 1)
        torch.Size([1, 9, 33])
    """
    check_tensor("waveform", waveform, "(B, L)", rank=2)
    check_positive_int("n_fft", n_fft)
    check_positive_int("hop_length", hop_length)
    check_positive("eps", eps)
    if waveform.shape[1] <= n_fft // 2:
        raise ValueError(f"waveform must have more than n_fft/2 = {n_fft // 2} samples, got {waveform.shape[1]}")
    window = torch.hann_window(n_fft, dtype=waveform.dtype, device=waveform.device)
    spectrum = torch.stft(waveform, n_fft, hop_length, window=window, center=True, return_complex=True)  # (B, bins, frames)
    return torch.log(spectrum.abs().square() + eps).transpose(1, 2)  # (B, frames, bins)


class SpeechTransformer(nn.Module):
    """A Whisper-style encoder-decoder: spectrogram frames in, text tokens out.

    The encoder's input stem is two ``Conv1d`` layers of width 3 with GELU, the
    second with stride 2 (halving the frame rate), then sinusoidal positions
    and the encoder. The decoder is the paper's: token embedding, positions
    (learned, as Whisper), masked self-attention and cross-attention, and an
    output projection tied to the embedding. ``encode``/``decode`` follow
    :class:`transformer_lib.Transformer`, so ``greedy_decode`` and
    ``beam_search`` accept it with features as ``src``.

    Uses ``config.tgt_vocab_size`` for the text and ``config.max_len`` for both
    position tables (after the stem, S frames become ceil(S / 2)). The output
    projection is always tied to the token embedding, as in Whisper;
    ``config.share_embeddings``, which ties a *source* embedding to the target,
    has nothing to tie here (and ``config.src_vocab_size`` is not used).

    Shape: features (B, S, F) -> memory (B, ceil(S/2), D); tokens (B, T) ->
    logits (B, T, V).
    Paper: Radford et al. (2023), §2.3. Book: ch-vision-speech.

    Examples:
        >>> import torch, transformer_lib as tl
        >>> speech = tl.SpeechTransformer(tl.TransformerConfig.tiny(), n_features=33)
        >>> features = tl.log_spectrogram(torch.randn(1, 1024))  # (1, 33, 33): 33 frames
        >>> speech(features, torch.tensor([[1, 5, 6]])).shape  # logits for each target position
        torch.Size([1, 3, 32])
    """

    def __init__(self, config: TransformerConfig, n_features: int) -> None:
        super().__init__()
        self.config = config = check_config(config)
        check_positive_int("n_features", n_features)
        self.n_features = n_features
        self.stem = nn.Sequential(
            nn.Conv1d(n_features, config.d_model, kernel_size=3, padding=1),
            nn.GELU(),
            nn.Conv1d(config.d_model, config.d_model, kernel_size=3, stride=2, padding=1),
            nn.GELU(),
        )
        self.source_positions = SinusoidalPositionalEncoding(config.d_model, config.max_len, config.dropout)
        self.encoder = Encoder(config)
        self.tgt_embed = TokenEmbedding(config.tgt_vocab_size, config.d_model, config.scale_embedding)
        self.target_positions = LearnedPositionalEncoding(config.d_model, config.max_len, config.dropout)
        self.decoder = Decoder(config)
        self.output_projection = output_projection(config.d_model, config.tgt_vocab_size, self.tgt_embed, config.output_bias)

    supports_cache = True  # decode() accepts a KVCache

    def encode(self, features: Tensor, *, src_mask: Tensor | None = None) -> Tensor:
        """Features (B, S, F) -> memory (B, ceil(S/2), D).

        ``src_mask``: which frames are real, broadcastable to (B, 1, 1, S) (or already
        to the memory's (B, 1, 1, ceil(S/2))); None = every frame.
        """
        check_tensor("features", features, f"(B, S, F={self.n_features})", rank=3, last_dim=self.n_features)
        x = self.stem(features.transpose(1, 2)).transpose(1, 2)  # (B, F, S) -> (B, D, S/2) -> (B, S/2, D)
        return self.encoder(self.source_positions(x), src_mask=self.memory_mask(src_mask, x.shape[1]))

    def decode(
        self,
        tgt: Tensor,
        memory: Tensor,
        *,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        causal: bool = True,
        cache: KVCache | None = None,
    ) -> Tensor:
        """Tokens (B, T) and memory (B, S', D) -> decoder states (B, T, D); always causal unless ``causal=False``.

        ``cache``: as :meth:`transformer_lib.Transformer.decode` (only new positions are computed).
        """
        past = 0 if cache is None else cache.length
        x = self.target_positions(self.tgt_embed(tgt[:, past:]), offset=past)
        src_mask = self.memory_mask(src_mask, memory.shape[1])
        return self.decoder(x, memory, src_mask=src_mask, tgt_mask=tgt_mask, causal=causal, cache=cache)

    def forward(
        self,
        features: Tensor,
        tgt: Tensor,
        *,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        causal: bool = True,
    ) -> Tensor:
        memory = self.encode(features, src_mask=src_mask)
        states = self.decode(tgt, memory, src_mask=src_mask, tgt_mask=tgt_mask, causal=causal)
        return self.output_projection(states)  # (B, T, V)

    @staticmethod
    def memory_mask(src_mask: Tensor | None, memory_length: int) -> Tensor | None:
        """A frame mask (..., S) as a mask over the stem's ceil(S/2) outputs (output t is centred on frame 2t).

        A mask whose last size is already 1 or ``memory_length`` is returned as it is.
        """
        if src_mask is None or src_mask.shape[-1] in (1, memory_length):
            return src_mask
        if math.ceil(src_mask.shape[-1] / 2) != memory_length:
            raise ValueError(
                f"src_mask must cover the S frames (or the {memory_length} memory positions), "
                f"got shape {tuple(src_mask.shape)} for a memory of {memory_length} positions"
            )
        return src_mask[..., ::2]

    @staticmethod
    def memory_length(frames: int) -> int:
        """Frames after the stride-2 stem: ceil(frames / 2)."""
        return math.ceil(frames / 2)

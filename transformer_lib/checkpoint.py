"""Training checkpoints: written atomically, read safely, checked against the model.

A checkpoint is one ``torch.save`` file holding only tensors and plain Python
values (dicts, lists, numbers, strings), so it loads with
``torch.load(..., weights_only=True)``, which never runs code from the file.
It stores the model config as a plain dict, and loading refuses a checkpoint
written for a different config.

The file is written to a temporary name in the same folder and then renamed
over the old one (``os.replace``, atomic on POSIX and Windows), so a crash
while saving leaves the previous checkpoint intact, never a half-written one.

Book: ch-training.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import torch
from torch import nn
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler

from .model import unwrap

CHECKPOINT_NAME = "checkpoint.pt"
CHECKPOINT_FORMAT = "transformer_lib.checkpoint"
CHECKPOINT_VERSION = 1
_REQUIRED = ("format", "version", "step", "config", "model")


def config_dict(model: nn.Module) -> dict[str, Any] | None:
    """The model's config as a plain dict (None if the model has no dataclass config). Book: ch-training.

    Examples:
        >>> tl.checkpoint.config_dict(tl.Transformer(tl.TransformerConfig.tiny()))["d_model"]
        64
        >>> tl.checkpoint.config_dict(torch.nn.Linear(2, 2)) is None  # no config to store
        True
    """
    config = getattr(unwrap(model), "config", None)
    if isinstance(config, type) or not dataclasses.is_dataclass(config):
        return None
    return {field.name: getattr(config, field.name) for field in dataclasses.fields(config)}


def save_checkpoint(
    path: str | os.PathLike,
    *,
    model: nn.Module,
    optimizer: Optimizer | None = None,
    scheduler: LRScheduler | None = None,
    step: int = 0,
    **state: Any,
) -> Path:
    """Write a checkpoint atomically; extra keyword values (plain data) are stored too.

    Returns the path written. Book: ch-training.

    Examples:
        >>> import tempfile
        >>> model = tl.Transformer(tl.TransformerConfig.tiny())
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = tl.save_checkpoint(f"{folder}/checkpoint.pt", model=model, step=7, note="tiny")
        ...     tl.load_checkpoint(path)["note"]
        'tiny'
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    content = {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "step": int(step),
        "config": config_dict(model),
        "model": unwrap(model).state_dict(),
        "optimizer": None if optimizer is None else optimizer.state_dict(),
        "scheduler": None if scheduler is None else scheduler.state_dict(),
        **state,
    }
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            torch.save(content, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)  # atomic: readers see the old file or the new one
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def load_checkpoint(
    path: str | os.PathLike,
    *,
    model: nn.Module | None = None,
    optimizer: Optimizer | None = None,
    scheduler: LRScheduler | None = None,
) -> dict[str, Any]:
    """Read a checkpoint and load it into ``model``, ``optimizer`` and ``scheduler`` if given.

    Raises:
        FileNotFoundError: no file at ``path``.
        ValueError: naming the file and the problem, if it is truncated or not a
            torch file, holds objects other than tensors and plain data, is not a
            transformer_lib checkpoint, or was written for a different model config.

    Returns the checkpoint's dict (step, history, random states ...). Book: ch-training.

    Examples:
        >>> import tempfile
        >>> saved, fresh = tl.Transformer(tl.TransformerConfig.tiny()), tl.Transformer(tl.TransformerConfig.tiny())
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     path = tl.save_checkpoint(f"{folder}/checkpoint.pt", model=saved, step=7)
        ...     tl.load_checkpoint(path, model=fresh)["step"]
        7
        >>> torch.equal(fresh.output_projection.weight, saved.output_projection.weight)
        True
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    try:
        content = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        raise ValueError(
            f"checkpoint {path} holds objects other than tensors and plain data, or is not a torch file; "
            f"torch.load(weights_only=True) refused it: {str(error).splitlines()[0]}"
        ) from error
    except (RuntimeError, EOFError, zipfile.BadZipFile, OSError, struct.error) as error:  # struct: a few bytes of text
        raise ValueError(
            f"checkpoint {path} cannot be read: the file is truncated or is not a torch.save file ({error})"
        ) from error
    if not isinstance(content, dict) or content.get("format") != CHECKPOINT_FORMAT:
        keys = sorted(map(str, content))[:8] if isinstance(content, dict) else type(content).__name__
        raise ValueError(
            f"{path} is not a transformer_lib training checkpoint (expected format={CHECKPOINT_FORMAT!r}, "
            f"found {keys}); a bare state_dict loads with model.load_state_dict(torch.load(path))"
        )
    missing = [key for key in _REQUIRED if key not in content]
    if missing or not isinstance(content["version"], int) or content["version"] > CHECKPOINT_VERSION:
        raise ValueError(
            f"checkpoint {path} is incomplete or from a newer version: missing {missing}, "
            f"version {content.get('version')!r} (this library reads version <= {CHECKPOINT_VERSION})"
        )
    if model is not None:
        _check_same_config(path, _with_new_defaults(content["config"], model), config_dict(model))
        try:
            unwrap(model).load_state_dict(content["model"])
        except RuntimeError as error:
            raise ValueError(f"checkpoint {path} does not fit the model: {error}") from error
    if optimizer is not None:
        if content.get("optimizer") is None:
            raise ValueError(f"checkpoint {path} holds no optimizer state")
        try:
            optimizer.load_state_dict(content["optimizer"])
        except (ValueError, KeyError) as error:
            raise ValueError(f"checkpoint {path}: the optimizer state does not fit the optimizer: {error}") from error
    if scheduler is not None:
        if content.get("scheduler") is None:
            raise ValueError(f"checkpoint {path} holds no scheduler state")
        scheduler.load_state_dict(content["scheduler"])  # LambdaLR keeps its own rate functions
    return content


def _with_new_defaults(stored: dict[str, Any] | None, model: nn.Module) -> dict[str, Any] | None:
    """``stored`` with the fields it lacks set to their defaults: a checkpoint written before a config
    field was added (e.g. ``output_bias``) was written for a model with that field's default."""
    config = getattr(unwrap(model), "config", None)
    if not isinstance(stored, dict) or isinstance(config, type) or not dataclasses.is_dataclass(config):
        return stored
    added = {
        field.name: field.default
        for field in dataclasses.fields(config)
        if field.name not in stored and field.default is not dataclasses.MISSING
    }
    return {**stored, **added}


def _check_same_config(path: Path, stored: dict[str, Any] | None, current: dict[str, Any] | None) -> None:
    if stored is None or current is None:
        return
    if stored != current:
        fields = sorted(set(stored) | set(current))
        differ = [
            f"{f}: checkpoint {stored.get(f)!r}, model {current.get(f)!r}" for f in fields if stored.get(f) != current.get(f)
        ]
        raise ValueError(f"checkpoint {path} was written for a different model config; " + "; ".join(differ))


__all__ = ["CHECKPOINT_NAME", "config_dict", "load_checkpoint", "save_checkpoint"]

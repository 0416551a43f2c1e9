"""The command line ``python -m transformer_lib``, alone and under torchrun (2 processes, gloo)."""

import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import transformer_lib as tl
from transformer_lib.cli import main

TINY = [
    "--d-model",
    "32",
    "--d-ff",
    "64",
    "--heads",
    "4",
    "--layers",
    "1",
    "--batch-tokens",
    "200",
    "--eval-examples",
    "16",
    "--no-progress",
]


def _losses(folder: Path) -> list[float]:
    return json.loads((folder / "history.json").read_text())["losses"]


def test_cli_trains_evaluates_checkpoints_and_resumes(tmp_path, capsys):
    main(["--task", "reverse", "--steps", "6", "--eval-every", "3", "--out", str(tmp_path / "whole"), "--dropout", "0.1", *TINY])
    lines = capsys.readouterr().out.splitlines()  # stdout is not a terminal here: one line per evaluation
    assert len(lines) == 3 and lines[0].startswith("eval: step=3 held_out_loss=") and lines[1].startswith("eval: step=6 ")
    assert lines[2].startswith("summary: task=reverse steps=6 ") and "exact_match=" in lines[2]
    assert lines[1].split()[2] == lines[2].split()[5]  # the summary repeats the last evaluation's held_out_loss
    whole = json.loads((tmp_path / "whole" / "history.json").read_text())
    assert [e["step"] for e in whole["evals"]] == [3, 6] and set(whole["evals"][0]) == {"step", "loss", "accuracy"}
    assert (tmp_path / "whole" / "checkpoint.pt").is_file()

    main(["--task", "reverse", "--steps", "4", "--out", str(tmp_path / "split"), "--dropout", "0.1", *TINY])
    main(["--task", "reverse", "--steps", "6", "--out", str(tmp_path / "split"), "--dropout", "0.1", "--resume", *TINY])
    assert _losses(tmp_path / "split") == whole["losses"]


def test_cli_refuses_a_checkpoint_of_another_size(tmp_path):
    main(["--task", "copy", "--steps", "1", "--out", str(tmp_path), *TINY])
    with pytest.raises(ValueError, match=r"different model config; d_ff: checkpoint 64, model 128"):
        main(["--task", "copy", "--steps", "2", "--out", str(tmp_path), "--resume", *TINY, "--d-ff", "128"])


def test_cli_rejects_an_unknown_task(capsys):
    with pytest.raises(SystemExit):
        main(["--task", "parity", "--steps", "1", "--out", "unused"])
    assert "invalid choice: 'parity'" in capsys.readouterr().err


BAD_ARGUMENTS = [
    # (extra arguments, the flag the error must name, a phrase of the reason)
    (["--steps", "0"], "--steps", "must be an integer >= 1, got 0"),  # was a summary with nan losses
    (["--steps", "-3"], "--steps", "got -3"),
    (["--steps", "two"], "--steps", "got 'two'"),
    (["--heads", "3"], "--heads", "must divide --d-model=64"),  # was a traceback from TransformerConfig
    (["--d-model", "15", "--heads", "3"], "--d-model", "(sinusoidal positions come in sin/cos pairs), got 15"),  # was a traceback
    (["--batch-tokens", "4"], "--batch-tokens", "at least 11, got 4"),  # was a traceback from BatchStream
    (["--batch-tokens", "0"], "--batch-tokens", "got 0"),
    (["--eval-every", "0"], "--eval-every", "got 0"),  # was a traceback from train
    (["--eval-examples", "0"], "--eval-examples", "got 0"),
    (["--checkpoint-every", "0"], "--checkpoint-every", "got 0"),
    (["--d-ff", "0"], "--d-ff", "got 0"),
    (["--layers", "0"], "--layers", "got 0"),  # was accepted: a model with no layers
    (["--dropout", "1"], "--dropout", "in [0, 1), got 1"),
    (["--dropout", "nan"], "--dropout", "got nan"),
    (["--smoothing", "-0.1"], "--smoothing", "got -0.1"),
    (["--warmup", "0"], "--warmup", "got 0"),
    (["--lr-factor", "0"], "--lr-factor", "got 0"),
    (["--clip", "-1"], "--clip", "got -1"),
    (["--threads", "0"], "--threads", "got 0"),
    (["--seed", "-1"], "--seed", "got -1"),
]


@pytest.mark.parametrize(("extra", "flag", "reason"), BAD_ARGUMENTS, ids=[" ".join(e) for e, _, _ in BAD_ARGUMENTS])
def test_bad_argument_is_a_one_line_error_naming_the_flag(tmp_path, capsys, extra, flag, reason):
    with pytest.raises(SystemExit) as info:
        main(["--task", "dates", "--steps", "5", "--out", str(tmp_path / "run"), "--no-progress", *extra])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith(f"python -m transformer_lib: error: argument {flag}: ")
    assert reason in captured.err
    assert not (tmp_path / "run").exists()  # nothing was trained or written


def test_out_must_be_a_folder(tmp_path, capsys):
    file = tmp_path / "taken"
    file.write_text("")
    with pytest.raises(SystemExit):
        main(["--task", "copy", "--steps", "1", "--out", str(file)])
    assert "argument --out: must be a folder" in capsys.readouterr().err


def test_resuming_a_finished_run_is_an_error_not_a_nan_summary(tmp_path, capsys):
    main(["--task", "copy", "--steps", "2", "--out", str(tmp_path), *TINY])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["--task", "copy", "--steps", "2", "--out", str(tmp_path), "--resume", *TINY])
    captured = capsys.readouterr()
    assert "argument --steps: the checkpoint in" in captured.err and "is at step 2" in captured.err
    assert "nan" not in captured.out


def test_help_shows_the_defaults(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # undo argparse's line wrapping
    for default in ("(default: 1000)", "(default: 64)", "(default: 0.1)", "(default: 200)", "(default: 0.3)"):
        assert default in text
    assert "(default: None)" not in text and "(default: False)" not in text


def test_command_line_errors_in_a_fresh_process():
    """What a reader sees in a shell: one line on stderr, exit status 2, no traceback."""
    for extra in (["--steps", "0"], ["--heads", "3", "--steps", "5"], ["--batch-tokens", "4", "--steps", "5"]):
        command = [sys.executable, "-m", "transformer_lib", "--task", "dates", "--out", "unused", *extra]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        assert result.returncode == 2, result.stderr[-2000:]
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert f"argument {extra[0]}:" in result.stderr


@pytest.mark.slow
def test_torchrun_two_processes_match_one_process(tmp_path):
    args = ["--task", "copy", "--steps", "4", *TINY]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node=2",
        "-m",
        "transformer_lib",
        *args,
        "--out",
        str(tmp_path / "ddp"),
    ]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.count("summary:") == 1  # only rank 0 reports
    main([*args, "--out", str(tmp_path / "single")])

    # every rank computes its half of the same global batch; the token-summed loss over
    # the global token count makes the loss and the averaged gradients those of one process
    ddp, single = _losses(tmp_path / "ddp"), _losses(tmp_path / "single")
    assert len(ddp) == 4
    torch.testing.assert_close(torch.tensor(ddp), torch.tensor(single), rtol=1e-6, atol=0)

    weights_ddp = torch.load(tmp_path / "ddp" / "checkpoint.pt", weights_only=True)["model"]
    weights_single = torch.load(tmp_path / "single" / "checkpoint.pt", weights_only=True)["model"]
    history = json.loads((tmp_path / "single" / "history.json").read_text())
    for name, value in weights_single.items():
        if name.endswith("k_proj.bias"):
            # softmax ignores a key bias, so its true gradient is 0 and what is left is
            # rounding noise, which Adam scales up to at most about lr per step
            assert float((weights_ddp[name] - value).abs().max()) <= sum(history["learning_rates"])
        else:
            torch.testing.assert_close(weights_ddp[name], value, rtol=0, atol=1e-5)


def test_every_model_and_schedule_flag_reaches_the_run(tmp_path):
    """A flag read but not passed on (a one-line bug) changes nothing; each must show in the checkpoint or history."""
    flags = ["--d-model", "24", "--heads", "3", "--d-ff", "40", "--layers", "1", "--dropout", "0.2", "--warmup", "7"]
    flags += ["--lr-factor", "0.5", "--batch-tokens", "120", "--eval-examples", "4", "--no-progress"]
    main(["--task", "copy", "--steps", "2", "--out", str(tmp_path / "a"), *flags])
    config = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=True)["config"]
    assert (config["d_model"], config["n_heads"], config["d_ff"]) == (24, 3, 40)
    assert (config["n_encoder_layers"], config["n_decoder_layers"], config["dropout"]) == (1, 1, 0.2)
    history = json.loads((tmp_path / "a" / "history.json").read_text())
    assert history["learning_rates"] == pytest.approx([tl.noam_lr(step, 24, 7, 0.5) for step in (1, 2)], rel=1e-12)
    assert all(tokens <= 120 for tokens in history["tokens"])  # target tokens of each batch stay within the budget
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["held_out_examples"] == 4

    # --smoothing reaches the loss and --seed the weights: each changes the first loss, and nothing else does
    def first_loss(name, *extra):
        main(["--task", "copy", "--steps", "1", "--out", str(tmp_path / name), *flags, *extra])
        return _losses(tmp_path / name)[0]

    again = first_loss("again")
    assert again == first_loss("same")
    assert first_loss("smoothing", "--smoothing", "0.0") != again
    assert first_loss("seed", "--seed", "1") != again


def test_no_module_of_the_package_hides_a_function_of_the_same_name():
    """Failed on the old code: ``import transformer_lib.train`` (the entry point was a module named train) bound
    the name ``train`` in the package to that module, hiding the function ``tl.train``."""
    functions = {name for name in tl.__all__ if callable(getattr(tl, name)) and not inspect.ismodule(getattr(tl, name))}
    modules = {info.name for info in pkgutil.iter_modules(tl.__path__)}
    assert not functions & modules, functions & modules
    importlib.import_module("transformer_lib.__main__")  # the entry point imports cleanly and binds nothing
    assert callable(tl.train) and not inspect.ismodule(tl.train)

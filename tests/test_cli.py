"""The command line ``python -m transformer_lib.train``, alone and under torchrun (2 processes, gloo)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from transformer_lib.cli import main

TINY = ["--d-model", "32", "--d-ff", "64", "--heads", "4", "--layers", "1", "--batch-tokens", "200",
        "--eval-examples", "16", "--no-progress"]


def _losses(folder: Path) -> list[float]:
    return json.loads((folder / "history.json").read_text())["losses"]


def test_cli_trains_evaluates_checkpoints_and_resumes(tmp_path, capsys):
    main(["--task", "reverse", "--steps", "6", "--eval-every", "3", "--out", str(tmp_path / "whole"), "--dropout", "0.1", *TINY])
    out = capsys.readouterr().out
    assert out.startswith("summary: task=reverse steps=6 ") and "exact_match=" in out and out.count("\n") == 1
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


@pytest.mark.slow
def test_torchrun_two_processes_match_one_process(tmp_path):
    args = ["--task", "copy", "--steps", "4", *TINY]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
               "-m", "transformer_lib.train", *args, "--out", str(tmp_path / "ddp")]
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

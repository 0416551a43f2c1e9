"""The command line ``python -m transformer_lib``, alone and under torchrun (2 processes, gloo)."""

import importlib
import inspect
import json
import os
import pkgutil
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import torch

import transformer_lib as tl
from transformer_lib import cli
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


def test_cli_rejects_an_unknown_task(capsys):
    with pytest.raises(SystemExit):
        main(["--task", "parity", "--steps", "1", "--out", "unused"])
    assert "invalid choice: 'parity'" in capsys.readouterr().err


BAD_ARGUMENTS = [
    # (extra arguments, the flag the error must name, a phrase of the reason)
    # issue 23: these trained, or ended in a traceback, on the old code
    (["--lr-factor", "inf"], "--lr-factor", "in (0, inf), got inf"),  # trained into "the loss is nan"
    (["--lr-factor", "1e308"], "--lr-factor", "at most 113.1, got 1e+308"),  # a RuntimeError from the scheduler
    (["--lr-factor", "200"], "--lr-factor", "the peak rate factor * (D * warmup)^-0.5 must be at most 1"),
    (["--lr-factor", "1e-320"], "--lr-factor", "below the smallest normal float64"),  # trained with a rate of 0
    (["--clip", "inf"], "--clip", "in (0, inf), got inf"),
    (["--seed", "99999999999999999999999"], "--seed", "in [0, 4294967295]"),  # a traceback from NumPy
    (["--seed", "4294967296"], "--seed", "got 4294967296"),
    (["--warmup", "1" + "0" * 400], "--warmup", "(401 characters)"),  # an OverflowError from the schedule
    (["--threads", "100000"], "--threads", "(the CPU cores this process may use), got 100000"),  # a SystemError
    (["--out", ""], "--out", "must name a folder, got ''"),  # wrote into the current folder
    (["--d-model", "100000", "--heads", "1"], "arguments --d-model, --d-ff, --layers", "16 bytes a parameter"),  # no memory
    (["--layers", "99999999999999999999999"], "arguments --d-model, --d-ff, --layers", "more than this machine's"),  # hung
    (["--batch-tokens", "99999999999999999999999"], "--batch-tokens", "more than this machine's"),  # hung
    (["--eval-examples", "99999999999999999999999"], "--eval-examples", "more than this machine's"),  # hung
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


def _one_line_error(captured, flag: str, status: int = 2) -> str:
    """The error line, after checking that it is the only line on stderr, names ``flag`` and is no traceback."""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    label = flag if flag.startswith("argument") else f"argument {flag}"
    prefix = "python -m transformer_lib: error: " + (f"{label}: " if status == 2 else "")
    assert captured.err.startswith(prefix), captured.err
    assert flag in captured.err
    return captured.err


@pytest.mark.parametrize(
    ("extra", "flag", "reason"), BAD_ARGUMENTS, ids=[" ".join(e)[:40] or repr(e) for e, _, _ in BAD_ARGUMENTS]
)
def test_bad_argument_is_a_one_line_error_naming_the_flag(tmp_path, capsys, monkeypatch, extra, flag, reason):
    monkeypatch.chdir(tmp_path)  # where --out "" wrote on the old code
    out = ["--out", str(tmp_path / "run")]
    with pytest.raises(SystemExit) as info:
        main(["--task", "dates", "--steps", "5", *out, "--no-progress", *extra])
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert reason in _one_line_error(captured, flag)
    assert list(tmp_path.iterdir()) == []  # nothing was trained or written


def test_a_flag_is_never_guessed_from_a_prefix(tmp_path, capsys):
    """Failed on the old code: argparse read ``--lr 0.5`` as ``--lr-factor 0.5`` (a learning rate taken for a factor)."""
    with pytest.raises(SystemExit) as info:
        main(["--task", "copy", "--steps", "1", "--out", str(tmp_path / "run"), *TINY, "--lr", "0.5"])
    assert info.value.code == 2
    assert capsys.readouterr().err == "python -m transformer_lib: error: unrecognized arguments: --lr 0.5 (see --help)\n"
    assert not (tmp_path / "run").exists()


def test_out_must_be_a_folder(tmp_path, capsys):
    file = tmp_path / "taken"
    file.write_text("")
    with pytest.raises(SystemExit):
        main(["--task", "copy", "--steps", "1", "--out", str(file)])
    assert "argument --out: must be a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("out", "reason"),
    [
        ("taken/run", "cannot create the folder"),  # under a regular file: a NotADirectoryError on the old code
        ("x" * 300, "cannot write in the folder"),  # a name longer than a file system allows: an OSError
        ("written", "the run writes the file history.json there, but"),  # an IsADirectoryError at the end
    ],
    ids=["under a file", "name too long", "history.json a folder"],
)
def test_out_that_cannot_be_written_is_a_one_line_error(tmp_path, capsys, out, reason):
    (tmp_path / "taken").write_text("")
    (tmp_path / "written" / "history.json").mkdir(parents=True)
    with pytest.raises(SystemExit) as info:
        main(["--task", "copy", "--steps", "1", "--out", str(tmp_path / out), *TINY])
    assert info.value.code == 2
    assert reason in _one_line_error(capsys.readouterr(), "--out")


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory):
    """A run stopped after 1 step with TINY's sizes, the defaults and --task copy; a test resumes a copy of it."""
    folder = tmp_path_factory.mktemp("stopped") / "run"
    main(["--task", "copy", "--steps", "1", "--out", str(folder), *TINY])
    return folder


RESUME_MISMATCHES = [
    # (what this command changes, the flags the error must name); each carried on silently or gave a traceback
    (["--task", "reverse"], "--task"),  # the same vocabulary: carried on, training copy's model on reversing
    (["--task", "dates"], "--task"),
    (["--d-model", "16"], "--d-model"),  # a traceback from load_checkpoint
    (["--heads", "2"], "--heads"),
    (["--d-ff", "32"], "--d-ff"),
    (["--layers", "2"], "--layers"),
    (["--dropout", "0.1"], "--dropout"),
    (["--seed", "1"], "--seed"),
    (["--warmup", "7"], "--warmup"),
    (["--lr-factor", "0.5"], "--lr-factor"),
    (["--smoothing", "0.2"], "--smoothing"),
    (["--clip", "1"], "--clip"),
    (["--batch-tokens", "300"], "--batch-tokens"),
    (["--task", "reverse", "--seed", "3", "--d-model", "16"], "arguments --task, --seed, --d-model"),
]


@pytest.mark.parametrize(("change", "flags"), RESUME_MISMATCHES, ids=[" ".join(c) for c, _ in RESUME_MISMATCHES])
def test_resuming_another_run_is_a_one_line_error_naming_the_flags(stopped_run, tmp_path, capsys, change, flags):
    folder = tmp_path / "run"
    shutil.copytree(stopped_run, folder)
    before = (folder / "checkpoint.pt").read_bytes()
    capsys.readouterr()
    task = change[1] if change[0] == "--task" else "copy"
    with pytest.raises(SystemExit) as info:
        main(["--task", task, "--steps", "2", "--out", str(folder), "--resume", *TINY, *change])
    assert info.value.code == 2
    error = _one_line_error(capsys.readouterr(), flags)
    assert "--resume continues that run, so it needs the same value" in error
    assert (folder / "checkpoint.pt").read_bytes() == before  # nothing trained


def test_resume_may_change_what_does_not_define_the_run(stopped_run, tmp_path):
    """Evaluation, checkpointing and threads may change; the checkpoint keeps the arguments that --resume compares."""
    folder = tmp_path / "run"
    shutil.copytree(stopped_run, folder)
    main(["--task", "copy", "--steps", "2", "--out", str(folder), "--resume", *TINY, "--eval-examples", "8", "--eval-every", "1"])
    run_info = torch.load(folder / "checkpoint.pt", weights_only=True)["run_info"]
    assert run_info == {
        "task": "copy",
        "seed": 0,
        "batch_tokens": 200,
        "warmup": 200,
        "lr_factor": 0.3,
        "smoothing": 0.1,
        "clip": None,
    }


def test_resuming_from_a_file_that_is_no_checkpoint_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "checkpoint.pt").write_text("junk")  # a struct.error traceback on the old code
    with pytest.raises(SystemExit) as info:
        main(["--task", "copy", "--steps", "2", "--out", str(tmp_path), "--resume", *TINY])
    assert info.value.code == 2
    assert "is not a torch.save file" in _one_line_error(capsys.readouterr(), "--resume")


RUN_FAILURES = [
    # (what the run raises, the exit status, the flag the line names, a phrase of it): tracebacks on the old code
    (
        FloatingPointError("the loss is nan at step 3; lower the learning rate"),
        1,
        "--lr-factor",
        "training diverged (the loss is nan at step 3",
    ),
    (OSError(28, "No space left on device"), 1, "--out", "could not be written or read: [Errno 28] No space left"),
    (RuntimeError("DefaultCPUAllocator: can't allocate memory: you tried to allocate 9e9 bytes"), 1, "--batch-tokens", "out of"),
    (MemoryError(), 1, "--batch-tokens", "out of memory"),
    (KeyboardInterrupt(), 130, "--resume", "interrupted; --resume continues from the last checkpoint"),
]


@pytest.mark.parametrize(("raised", "status", "flag", "phrase"), RUN_FAILURES, ids=[type(r).__name__ for r, *_ in RUN_FAILURES])
def test_a_run_that_fails_on_its_way_is_one_line(tmp_path, capsys, monkeypatch, raised, status, flag, phrase):
    def fail(*args, **kwargs):
        raise raised

    monkeypatch.setattr(cli, "train", fail)
    assert main(["--task", "copy", "--steps", "5", "--out", str(tmp_path), *TINY]) == status
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert captured.err.startswith("python -m transformer_lib: ") and flag in captured.err and phrase in captured.err
    if isinstance(raised, RuntimeError):  # only torch's allocator running out: any other RuntimeError is a bug, shown in full

        def bug(*args, **kwargs):
            raise RuntimeError("a bug")

        monkeypatch.setattr(cli, "train", bug)
        with pytest.raises(RuntimeError, match="a bug"):
            main(["--task", "copy", "--steps", "5", "--out", str(tmp_path), *TINY])


def test_more_held_out_examples_than_the_task_has_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    """The dates task has 42,525 held-out sources; Task.examples says so with a ValueError (a traceback before)."""

    def too_few(self, n, seed=0, split="train", distinct=None):
        raise ValueError(f"task {self.name!r} has fewer than n={n} distinct {split} sources (found 42525)")

    monkeypatch.setattr(tl.tasks.Task, "examples", too_few)
    with pytest.raises(SystemExit) as info:
        main(["--task", "dates", "--steps", "1", "--out", str(tmp_path), *TINY, "--eval-examples", "50000"])
    assert info.value.code == 2
    assert "(found 42525), got 50000" in _one_line_error(capsys.readouterr(), "--eval-examples")


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


def test_command_line_errors_in_a_fresh_process(tmp_path):
    """What a reader sees in a shell: one line on stderr, exit status 2, no traceback."""
    (tmp_path / "file").write_text("")
    for extra in (
        ["--steps", "0"],
        ["--heads", "3", "--steps", "5"],
        ["--batch-tokens", "4", "--steps", "5"],
        ["--lr-factor", "inf", "--steps", "5"],
        ["--seed", "99999999999999999999999", "--steps", "5"],
        ["--out", str(tmp_path / "file" / "run"), "--steps", "5"],
    ):
        command = [sys.executable, "-m", "transformer_lib", "--task", "dates", "--out", str(tmp_path / "unused"), *extra]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert result.returncode == 2, result.stderr[-2000:]
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
        assert f"argument {extra[0]}:" in result.stderr


def test_the_console_script_calls_main_and_names_itself():
    """pyproject.toml's [project.scripts] entry, run as pip's wrapper runs it: ``sys.exit(main())`` with argv[0] its name."""
    with open(Path(__file__).parents[1] / "pyproject.toml", "rb") as file:
        scripts = tomllib.load(file)["project"]["scripts"]
    assert scripts == {"transformer-lib": "transformer_lib.cli:main"}
    module, function = scripts["transformer-lib"].split(":")
    wrapper = (
        f"import sys; from {module} import {function} as entry; sys.argv[0] = '/venv/bin/transformer-lib'; sys.exit(entry())"
    )
    result = subprocess.run([sys.executable, "-c", wrapper, "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("usage: transformer-lib "), result.stderr[-2000:]
    assert "Exit status: 0 done; 2 a bad argument" in " ".join(result.stdout.split())
    result = subprocess.run(
        [sys.executable, "-c", wrapper, "--task", "dates", "--out", "unused", "--steps", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and result.stderr.startswith("transformer-lib: error: argument --steps: "), result.stderr


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

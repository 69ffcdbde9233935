"""What the runtime watch costs: watched / unwatched time of small models, interleaved.

``python -m attention.review.watch_benchmark --out docs/_data/watch-benchmark.json`` (which
``nox -s bench`` runs) times each workload of :func:`workloads` with and without an open
:func:`~attention.review.watch.watch`, in one process: each round times both sides with
``torch.utils.benchmark.Timer.blocked_autorange``, alternating which goes first, and a
workload's ratio is the median of its per-round ratios, so a machine whose load changes while it
runs moves both sides.  The watch is opened around the timed calls, as around a training loop
or a test: its cost per call is what is measured, not that of opening it.

The Hugging Face workloads (GPT-2 and BERT built from small configurations, nothing
downloaded) run where ``transformers`` is installed and are left out otherwise.

>>> found = measure(rounds=1, min_run_time=0.01, only=("sdpa call",))
>>> sorted(found.ratios), found.ratios["sdpa call"] > 0
(['sdpa call'], True)
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import os
import platform
import statistics
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from attention.review.watch import watch

__all__ = ["GOALS", "WatchOverhead", "correct_models", "main", "measure", "workloads"]

GOALS = {"model": 1.10, "call": 1.5}
"""The largest ratio each kind of workload may cost: a model's pass, or one attention call."""


@dataclass(frozen=True)
class Workload:
    """One timed thing: what it runs, what it is (for the record) and which goal it answers."""

    run: Callable[[], object]
    what: str
    goal: str  # "model" or "call"


def _padding(batch: int, length: int) -> Tensor:
    """Token ids with padding (id 0) at the end of every other item: [B, T]."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1, 100, (batch, length), generator=generator)
    ids[::2, length - length // 4 :] = 0
    return ids


def _encoder_workloads() -> dict[str, Workload]:
    torch.manual_seed(0)
    d_model, heads, batch, length = 32, 4, 8, 16
    layer = nn.TransformerEncoderLayer(d_model, heads, 2 * d_model, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(batch, length, d_model)  # [B, T, E]
    ids = _padding(batch, length)

    def forward() -> object:
        model.eval()
        with torch.no_grad():
            return model(x, src_key_padding_mask=ids == 0)  # a new mask each call, as per batch

    def training_step() -> object:
        model.train()
        optimizer.zero_grad()
        loss = model(x, src_key_padding_mask=ids == 0).square().mean()
        loss.backward()
        optimizer.step()
        return loss

    what = f"nn.TransformerEncoder, 2 layers, d_model {d_model}, {heads} heads"
    what += f", B {batch}, T {length}"
    return {
        "encoder forward": Workload(forward, what + ", eval, no_grad (fused path)", "model"),
        "encoder training step": Workload(training_step, what + ", forward+backward+SGD", "model"),
    }


def _call_workloads() -> dict[str, Workload]:
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 4, 8, 16) for _ in range(3))  # [B, H, T, D]
    causal = torch.ones(8, 8, dtype=torch.bool).tril()  # [L, S], True = may attend
    mha = nn.MultiheadAttention(32, 4, batch_first=True)
    x = torch.randn(2, 8, 32)  # [B, T, E]
    padding = torch.zeros(2, 8, dtype=torch.bool)  # [B, S], True = padding
    padding[1, 6:] = True
    scale = 16**-0.5

    def sdpa() -> object:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=causal)

    def sdpa_new_mask() -> object:
        return F.scaled_dot_product_attention(q, k, v, attn_mask=causal.clone())

    def mha_call() -> object:
        return mha(x, x, x, key_padding_mask=padding)

    def by_hand() -> object:
        scores = (q @ k.transpose(-2, -1)) * scale  # [B, H, L, S]
        scores = scores.masked_fill(~causal, float("-inf"))
        return scores.softmax(dim=-1) @ v  # [B, H, L, D]

    shape = "q, k, v [2, 4, 8, 16], Boolean causal mask [8, 8]"
    return {
        "sdpa call": Workload(sdpa, f"F.scaled_dot_product_attention, {shape}", "call"),
        "sdpa call, new mask": Workload(
            sdpa_new_mask, "the same with a copy of the mask each call (both sides copy)", "call"
        ),
        "mha call": Workload(
            mha_call, "nn.MultiheadAttention(32, 4), x [2, 8, 32], key_padding_mask", "call"
        ),
        "hand-written attention": Workload(
            by_hand, f"q @ kᵀ, masked_fill(-inf), softmax, @ v; {shape}", "call"
        ),
    }


def _hugging_face_workloads() -> dict[str, Workload]:
    try:
        import transformers  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return {}
    from transformers import (  # type: ignore[import-not-found, unused-ignore]
        BertConfig,
        BertModel,
        GPT2Config,
        GPT2LMHeadModel,
    )

    batch, length = 4, 16
    ids = _padding(batch, length)
    attention_mask = (ids != 0).long()  # [B, T], 1 = real token (Hugging Face's convention)
    found: dict[str, Workload] = {}
    small = {"vocab_size": 100, "hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4}
    for implementation in ("sdpa", "eager"):
        torch.manual_seed(0)
        gpt2 = GPT2LMHeadModel(
            GPT2Config(vocab_size=100, n_positions=64, n_embd=32, n_layer=2, n_head=4,
                       attn_implementation=implementation)
        )  # fmt: skip
        bert = BertModel(
            BertConfig(**small, intermediate_size=64, max_position_embeddings=64,
                       attn_implementation=implementation)
        )  # fmt: skip
        for name, model in (("GPT-2", gpt2), ("BERT", bert)):
            found.update(_model_pair(name, implementation, model, ids, attention_mask))
    version = transformers.__version__
    return {
        name: Workload(w.run, f"{w.what}, transformers {version}", w.goal)
        for name, w in found.items()
    }


def _model_pair(
    name: str, implementation: str, model: nn.Module, ids: Tensor, attention_mask: Tensor
) -> dict[str, Workload]:
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)

    def forward() -> object:
        model.eval()
        with torch.no_grad():
            return model(input_ids=ids, attention_mask=attention_mask)

    def training_step() -> object:
        model.train()
        optimizer.zero_grad()
        out = model(input_ids=ids, attention_mask=attention_mask)
        first = out[0]
        loss = first.float().square().mean()
        loss.backward()
        optimizer.step()
        return loss

    what = f"{name} tiny config (2 layers, width 32), {implementation} attention, B 4, T 16, padded"
    return {
        f"{name} {implementation} forward": Workload(forward, what + ", eval, no_grad", "model"),
        f"{name} {implementation} training step": Workload(
            training_step, what + ", forward+backward+SGD", "model"
        ),
    }


def _tiny_models(implementation: str) -> dict[str, tuple[nn.Module, dict[str, Tensor]]]:
    """BERT, GPT-2, T5 and Llama from small configurations (random weights, nothing fetched)."""
    import transformers as hf  # type: ignore[import-not-found, unused-ignore]

    ids, attention_mask = _right_padded()
    common = {"vocab_size": 100, "attn_implementation": implementation}
    return {
        "BERT": (
            hf.BertModel(
                hf.BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=64, max_position_embeddings=64, **common)
            ),
            {},
        ),
        "GPT-2": (
            hf.GPT2LMHeadModel(
                hf.GPT2Config(n_positions=64, n_embd=32, n_layer=2, n_head=4, bos_token_id=1,
                              eos_token_id=2, **common)
            ),
            {},
        ),
        "T5": (
            hf.T5ForConditionalGeneration(
                hf.T5Config(d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                            decoder_start_token_id=0, **common)
            ),
            {"decoder_input_ids": ids[:, :6], "decoder_attention_mask": attention_mask[:, :6]},
        ),
        "Llama": (
            hf.LlamaForCausalLM(
                hf.LlamaConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                               num_attention_heads=4, num_key_value_heads=2,
                               max_position_embeddings=64, **common)
            ),
            {},
        ),
    }  # fmt: skip


def _right_padded() -> tuple[Tensor, Tensor]:
    """Token ids [3, 12] padded on the right (items 1 and 2) and their 1 = real token mask."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(3, 100, (3, 12), generator=generator)
    attention_mask = torch.ones(3, 12, dtype=torch.long)
    attention_mask[1, 8:] = 0
    attention_mask[2, 5:] = 0
    return ids.masked_fill(attention_mask == 0, 0), attention_mask


def correct_models() -> dict[str, dict[str, object]]:
    """Each tiny Hugging Face model, eager and sdpa, eval and training: what the watch found.

    Every entry should read ``findings: []`` and ``bit_identical: true`` (the watched output
    equals the unwatched one).  Empty where ``transformers`` is not installed.
    """
    try:
        import transformers as hf  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return {}
    ids, attention_mask = _right_padded()
    found: dict[str, dict[str, object]] = {}
    for implementation in ("eager", "sdpa"):
        torch.manual_seed(0)
        for name, (model, extra) in _tiny_models(implementation).items():
            for training in (False, True):
                model.train(training)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    torch.manual_seed(0)
                    plain = model(input_ids=ids, attention_mask=attention_mask, **extra)[0]
                    with watch(warn=False) as seen:
                        torch.manual_seed(0)
                        out = model(input_ids=ids, attention_mask=attention_mask, **extra)[0]
                        out.float().square().mean().backward()
                mode = "training step" if training else "eval forward"
                found[f"{name} {implementation} {mode}"] = {
                    "findings": [finding.headline for finding in seen.findings],
                    "errors": list(seen.errors),
                    "bit_identical": bool(torch.equal(plain, out)),
                    "batch": "3 items of 12 tokens, right padding on items 1 and 2",
                    "transformers": hf.__version__,
                }
    return found


def workloads() -> dict[str, Workload]:
    """Every workload this machine can run, by name."""
    return {**_encoder_workloads(), **_call_workloads(), **_hugging_face_workloads()}


@dataclass(frozen=True)
class WatchOverhead:
    """Per workload: the median of the per-round watched / unwatched ratios, and the rounds."""

    ratios: Mapping[str, float]
    rounds: Mapping[str, tuple[tuple[float, float], ...]]  # (unwatched, watched) seconds
    what: Mapping[str, str]
    goals: Mapping[str, float]
    correct: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    load_before: tuple[float, ...] | None = None  # the machine's load average as timing began

    def met(self, name: str) -> bool:
        """Whether ``name``'s ratio is within its goal."""
        return self.ratios[name] <= self.goals[name]

    def as_json(self) -> dict[str, object]:
        """The record ``nox -s bench`` writes (``docs/_data/watch-benchmark.json``)."""
        return {
            "schema": 2,
            "what": "attention.review.watch overhead: watched / unwatched time per call",
            "timer": "torch.utils.benchmark.Timer.blocked_autorange on time.process_time (CPU "
            "time), interleaved rounds, median of per-round ratios; the watch open around the "
            "timed calls",
            "goals": GOALS,
            "met": all(self.met(name) for name in self.ratios),
            "workloads": {
                name: {
                    "what": self.what[name],
                    "ratio": self.ratios[name],
                    "goal": self.goals[name],
                    "met": self.met(name),
                    "unwatched_seconds_median": statistics.median(r[0] for r in runs),
                    "watched_seconds_median": statistics.median(r[1] for r in runs),
                    "rounds": [list(r) for r in runs],
                }
                for name, runs in self.rounds.items()
            },
            "correct_models": {name: dict(seen) for name, seen in self.correct.items()},
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "machine": platform.machine(),
            "processor": platform.processor() or None,
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_before": list(self.load_before) if self.load_before else None,
            "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
            "date": dt.date.today().isoformat(),
        }


def _interleaved(
    run: Callable[[], object], rounds: int, min_run_time: float
) -> list[tuple[float, float]]:
    """(unwatched, watched) seconds per call, per round, which side goes first alternating."""
    from torch.utils.benchmark import Timer

    # CPU time of this process, not wall time: on a machine shared with other work, another
    # process's load moves wall time by tens of per cent between two runs of the same code
    timer = Timer("run()", globals={"run": run}, timer=time.process_time)

    def plain() -> float:
        return float(timer.blocked_autorange(min_run_time=min_run_time).median)

    def watched() -> float:
        with watch(warn=False):
            return plain()

    run()
    with watch(warn=False):
        run()  # warm-up, both sides
    runs = []
    for round_number in range(rounds):
        if round_number % 2 == 0:
            unwatched = plain()
            seen = watched()
        else:
            seen = watched()
            unwatched = plain()
        runs.append((unwatched, seen))
    return runs


def measure(
    rounds: int = 15, min_run_time: float = 0.2, *, only: Iterable[str] | None = None
) -> WatchOverhead:
    """Time every workload (or those named in ``only``) watched and unwatched."""
    chosen = workloads()
    if only is not None:
        wanted = set(only)
        unknown = sorted(wanted - set(chosen))
        if unknown:
            raise ValueError(f"unknown workloads {unknown}; known: {sorted(chosen)}")
        chosen = {name: w for name, w in chosen.items() if name in wanted}
    times: dict[str, list[tuple[float, float]]] = {}
    load = tuple(os.getloadavg()) if hasattr(os, "getloadavg") else None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The PyTorch API of nested tensors")
        for name, workload in chosen.items():
            times[name] = _interleaved(workload.run, rounds, min_run_time)
    return WatchOverhead(
        ratios={name: statistics.median(w / p for p, w in runs) for name, runs in times.items()},
        rounds={name: tuple(runs) for name, runs in times.items()},
        what={name: chosen[name].what for name in times},
        goals={name: GOALS[chosen[name].goal] for name in times},
        load_before=load,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Measure, print a table, and write the record with ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m attention.review.watch_benchmark", description=__doc__
    )
    parser.add_argument("--out", type=Path, help="write the JSON record here")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--min-run-time", type=float, default=0.2)
    parser.add_argument("--only", action="append", help="a workload's name (repeatable)")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch's intra-op threads (default 1: small models)"
    )
    options = parser.parse_args(argv)
    torch.set_num_threads(options.threads)
    overhead = measure(options.rounds, options.min_run_time, only=options.only)
    overhead = dataclasses.replace(overhead, correct=correct_models())
    for name, seen in overhead.correct.items():
        print(f"{name:34s} findings: {len(seen['findings'])}")  # type: ignore[arg-type]
    for name, ratio in overhead.ratios.items():
        mark = "met" if overhead.met(name) else "NOT met"
        print(f"{name:34s} x{ratio:.3f} (goal: at most x{overhead.goals[name]:.2f}, {mark})")
    record = overhead.as_json()
    print(f"load average: {record['load_average_before']} before, {record['load_average']} after")
    if options.out is not None:
        options.out.parent.mkdir(parents=True, exist_ok=True)
        options.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {options.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

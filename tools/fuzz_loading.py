"""Fuzz every loading entry point, each case in a worker process under a time limit.

    python tools/fuzz_loading.py --cases 10000 [--seed 0] [--timeout 20] [--json]

The parent saves a few valid files (an archive, a weights file, a sharded set, a
checkpoint, and archives of models drawn from a grammar of valid architectures), then
makes each case by mutating one of them: bytes flipped, cut, inserted or repeated; zip
members duplicated or renamed; configs and shard indexes edited as JSON trees (hostile
names, bytecode, huge or wrong-typed values, deep nesting). A long-lived worker loads
each case the way a user would and reports one outcome:

- ``loaded``: it loaded, and every weight equals what was saved;
- ``refused``: a `ValueError` (`LaminaFileError` is one) — the only allowed failure;
- ``foreign``: any other exception type;
- ``wrong``: it loaded, with weights that differ from what was saved;
- ``executed``: code ran (an audit hook saw exec/compile/marshal/process/socket events),
  or a side effect was seen (a file in the canary folder, the global dtype policy or
  safe mode changed);
- ``hang`` / ``crash``: the worker ran past the time limit or died (it is restarted).

Everything but ``loaded`` and ``refused`` is a finding; the exit status is 1 when there
is any. The run is reproducible from ``--seed``.
"""

from __future__ import annotations

import argparse
import base64
import codecs
import collections
import contextlib
import copy
import io
import json
import marshal
import os
import pathlib
import random
import select
import signal
import subprocess
import sys
import tempfile
import time
import warnings
import zipfile
from typing import Any

OK = ("loaded", "refused")
KINDS = ("archive", "config", "zip", "weights", "index", "checkpoint")
DANGEROUS_EVENTS = (
    "exec",
    "compile",
    "marshal.loads",
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "subprocess.Popen",
    "ctypes.dlopen",
    "socket.connect",
    "pickle.find_class",
    "webbrowser.open",
)
DTYPES = ("O", "V8", "U3", "float32", "complex128", "M8")
CALLABLE_NAMES = (
    "__builtins__", "__import__", "builtins", "exec", "eval", "open", "compile", "getattr",
    "os.system", "system", "load_model", "save_model", "model_from_json", "deserialize",
    "deserialize_lamina_object", "get", "set_dtype_policy", "set_floatx", "set_backend",
    "enable_unsafe_deserialization", "set_random_seed", "Checkpoint", "CheckpointManager",
    "TFSMLayer", "Lambda", "get_file", "load_weights", "save_weights", "__class__",
    "__subclasses__", "__globals__", "_from_public_namespaces", "serialization", "saving",
)
MODULES = ("builtins", "os", "lamina", "lamina.saving", "keras.saving", "keras.src.saving",
           "lamina.config", "lamina.utils", "keras", "keras.layers", "")


# --- the worker ---------------------------------------------------------------------
def worker_main() -> None:
    """Load each case named on stdin; answer one JSON line per case on stdout."""
    import numpy as np

    import lamina
    from lamina.saving.serialization import in_safe_mode
    from lamina_saving import Checkpoint

    seen: list[str] = []
    armed = [False]

    def audit(event: str, args: Any) -> None:
        if event == "subprocess.Popen" and list(args[1][:2]) == [sys.executable, "-I"]:
            return  # lamina_saving's own HDF5 probe child, restarted after a bad file
        if armed[0] and event.startswith(DANGEROUS_EVENTS):
            seen.append(event)
            if os.environ.get("LAMINA_FUZZ_DEBUG"):
                import traceback

                traceback.print_stack(file=sys.stderr)

    def base_model() -> Any:
        return _base_model(lamina)

    def weights_of(model: Any) -> list[np.ndarray]:
        return saved_values(model, with_optimizer=True)

    def load(kind: str, path: str) -> Any:
        if kind in ("archive", "config", "zip"):
            return lamina.saving.load_model(path)
        model = base_model()
        if kind == "checkpoint":
            Checkpoint(model=model, optimizer=model.optimizer).restore(path)
        else:
            model.load_weights(path)
        return model

    # Codecs h5py looks up lazily for attribute strings: their first import (the standard
    # library's own marshal.loads and exec) is not code from a file.
    for codec in ("ascii", "utf-8", "latin-1"):
        codecs.lookup(codec)
    policy = lamina.config.dtype_policy().name
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing the library prints may corrupt the protocol
    sys.addaudithook(audit)
    for line in sys.stdin:
        case = json.loads(line)
        if case.get("warmup"):
            for kind, path in case["files"].items():
                load(kind, path)
            armed[0] = True
            out.write(json.dumps({"outcome": "ready"}) + "\n")
            out.flush()
            continue
        seen.clear()
        result: dict[str, Any]
        try:
            try:
                model = load(case["kind"], case["path"])
            finally:
                armed[0] = False  # what follows is the fuzzer's own work
        except ValueError as e:
            result = {"outcome": "refused", "type": type(e).__name__, "message": str(e)[:200]}
        except BaseException as e:  # every other type is a finding
            result = {"outcome": "foreign", "type": type(e).__name__, "message": str(e)[:300]}
        else:
            reference = np.load(case["reference"])
            expected = [reference[f"arr_{i}"] for i in range(len(reference.files))]
            got = weights_of(model)[: len(expected)]
            same = len(got) == len(expected) and all(
                a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
                for a, b in zip(got, expected)
            )
            result = {"outcome": "loaded" if same else "wrong"}
        effects = list(dict.fromkeys(seen))
        if os.listdir(case["canary"]):
            effects.append(f"canary files {os.listdir(case['canary'])}")
        if lamina.config.dtype_policy().name != policy:
            effects.append(f"dtype policy is now {lamina.config.dtype_policy().name}")
            lamina.config.set_dtype_policy(policy)
        if not in_safe_mode():
            effects.append("safe mode is off")
        if effects:
            result = {"outcome": "executed", "type": result.get("type"), "message": str(effects)}
        armed[0] = True
        out.write(json.dumps(result) + "\n")
        out.flush()


def saved_values(model: Any, with_optimizer: bool) -> list[Any]:
    """What a save of `model` holds, in order: compared as saved, a layer whose config
    a case changed (say, LoRA switched on) must still hold the same merged weights."""
    import numpy as np

    from lamina_saving.weights import model_entries

    return [np.asarray(v) for _, _, v in model_entries(model, with_optimizer=with_optimizer)]


def _base_model(lamina: Any) -> Any:
    """The model whose weights files, sharded sets and checkpoints are fuzzed."""
    from lamina.layers import Dense

    model = lamina.Sequential(
        [lamina.Input((4,)), Dense(3, activation="relu", name="hidden"), Dense(2, name="out")]
    )
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.01), loss="mse")
    model.optimizer.build(model.trainable_variables)
    return model


# --- valid files ----------------------------------------------------------------------
def _grammar_model(lamina: Any, rng: random.Random) -> Any:
    """A random valid architecture: a Sequential or a branching functional model."""
    from lamina import layers

    def block(x: Any) -> Any:
        choice = rng.choice(["dense", "dense", "norm", "drop", "act", "lnorm"])
        if choice == "dense":
            return layers.Dense(
                rng.randint(1, 6),
                activation=rng.choice([None, "relu", "tanh", "sigmoid", "gelu"]),
                use_bias=rng.random() < 0.8,
            )(x)
        if choice == "norm":
            return layers.BatchNormalization(momentum=rng.choice([0.9, 0.99]))(x)
        if choice == "lnorm":
            return layers.LayerNormalization()(x)
        if choice == "drop":
            return layers.Dropout(rng.choice([0.1, 0.5]), seed=rng.randint(0, 99))(x)
        return layers.Activation(rng.choice(["relu", "softplus", "swish"]))(x)

    inputs = lamina.Input((rng.randint(1, 5),), name="features")
    x = block(inputs)
    for _ in range(rng.randint(0, 3)):
        if rng.random() < 0.3:
            a, b = block(x), block(x)
            if a.shape == b.shape:
                x = rng.choice([layers.Add(), layers.Multiply()])([a, b])
            else:
                x = layers.Concatenate()([a, b])
        else:
            x = block(x)
    model = lamina.Model(inputs, layers.Dense(2, name="head")(x))
    model.compile(optimizer=rng.choice(["adam", "sgd", "rmsprop"]), loss="mse")
    return model


def make_valid_files(folder: pathlib.Path, seed: int, grammar_models: int) -> dict[str, Any]:
    """Save every valid file the cases start from, with the weights each must load as."""
    import numpy as np

    import lamina

    def save_reference(name: str, model: Any) -> str:
        values = saved_values(model, with_optimizer=False)
        path = folder / f"{name}.reference.npz"
        np.savez(path, *values)
        return str(path)

    base = _base_model(lamina)
    rng = np.random.default_rng(seed)
    base.set_weights([rng.normal(size=w.shape).astype(w.dtype) for w in base.get_weights()])
    files: dict[str, Any] = {
        "archive": folder / "base.lamina",
        "weights": folder / "base.weights.h5",
        "index": folder / "base.weights.json",
        "checkpoint": folder / "base.ckpt.h5",
    }
    base.save(files["archive"])
    base.save_weights(files["weights"])
    base.save_weights(files["index"], max_shard_size=1e-7)  # one shard per layer
    lamina_saving = __import__("lamina_saving")
    lamina_saving.Checkpoint(model=base, optimizer=base.optimizer).write(files["checkpoint"])
    reference = save_reference("base", base)
    grammar = []
    draw = random.Random(seed)
    for i in range(grammar_models):
        model = _grammar_model(lamina, draw)
        path = folder / f"grammar{i}.lamina"
        model.save(path)
        grammar.append({"path": str(path), "reference": save_reference(f"grammar{i}", model)})
    return {
        "files": {kind: str(path) for kind, path in files.items()},
        "reference": reference,
        "grammar": grammar,
        "shards": sorted(str(p) for p in folder.glob("base_*.weights.h5")),
    }


# --- mutations ------------------------------------------------------------------------
def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(max(len(buf), 1))
        kind = rng.choice(["flip", "flip", "cut", "insert", "overwrite", "repeat"])
        if kind == "flip" and buf:
            buf[at] ^= rng.randint(1, 255)
        elif kind == "cut":
            del buf[at:]
        elif kind == "insert":
            buf[at:at] = rng.randbytes(rng.randint(1, 64))
        elif kind == "overwrite":
            buf[at : at + 8] = rng.choice(
                [b"\xff" * 8, b"\x00" * 8, b"\x7f\xff\xff\xff\xff\xff\xff\xff"]
            )
        elif kind == "repeat":
            end = min(len(buf), at + rng.randint(1, 4096))
            buf[at:at] = buf[at:end] * rng.randint(2, 8)
    return bytes(buf)


def hostile_value(rng: random.Random, canary: str) -> Any:
    """A value an attacker might put anywhere in a config or an index."""
    name = rng.choice(CALLABLE_NAMES)
    module = rng.choice(MODULES)
    payload = compile(f"open({os.path.join(canary, 'pwned')!r}, 'w').close()", "<x>", "exec")
    code = base64.b64encode(marshal.dumps(payload)).decode()
    options: list[Any] = [
        name,
        f"{module}.{name}",
        {"class_name": "function", "config": name, "module": module},
        {"class_name": "function", "config": name, "module": module, "registered_name": name},
        {"class_name": "__class__", "config": name, "module": module},
        {"class_name": name, "config": {}, "module": module},
        {"class_name": "__lambda__", "config": {"code": code, "defaults": []}},
        {"class_name": "Lambda", "config": {
            "function": {"class_name": "function", "config": name, "module": module},
            "arguments": {"safe_mode": False, "custom_objects": {
                "x": {"class_name": "function", "config": "__builtins__"}}},
        }},
        {"class_name": "__numpy__", "config": {"value": [1], "dtype": rng.choice(DTYPES)}},
        {"class_name": "__tuple__", "config": {"value": rng.choice([None, 3, "x", [[]]])}},
        {"class_name": "__lamina_tensor__", "config": {"history": [name, 10**9, -1]}},
        {"safe_mode": False},
        rng.choice([2**31, 2**62, -1, 0, 10**400, 1e308, float("nan"), float("inf"), 2e8]),
        rng.choice([None, True, [], {}, "", "../" * 8 + "etc", "a" * rng.choice([10**3, 10**6])]),
        os.path.join(canary, "x.lamina"),
    ]
    return rng.choice(options)


def _nodes(tree: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON tree (breadth-first, no recursion)."""
    out: list[tuple[Any, ...]] = []
    queue = collections.deque([(tree, path)])
    while queue:
        node, where = queue.popleft()
        out.append(where)
        if isinstance(node, dict):
            queue.extend((v, (*where, k)) for k, v in node.items())
        elif isinstance(node, list):
            queue.extend((v, (*where, i)) for i, v in enumerate(node))
    return out


def _get(tree: Any, where: tuple[Any, ...]) -> Any:
    for key in where:
        tree = tree[key]
    return tree


def mutate_json(tree: Any, rng: random.Random, canary: str) -> Any:
    tree = copy.deepcopy(tree)
    for _ in range(rng.randint(1, 3)):
        paths = _nodes(tree)
        where = rng.choice(paths)
        if not where:
            continue
        parent, key = _get(tree, where[:-1]), where[-1]
        kind = rng.choice(["hostile", "hostile", "hostile", "delete", "retype", "nest", "swap"])
        if kind == "hostile":
            parent[key] = hostile_value(rng, canary)
        elif kind == "delete":
            del parent[key]
        elif kind == "retype":
            value = parent[key]
            parent[key] = rng.choice([[value], {"value": value}, str(value)[:50], None, 7])
        elif kind == "nest":
            depth = rng.choice([10, 1000, 20000])
            parent[key] = f"@@nest:{depth}@@"  # expanded as text by `to_json`
        else:
            other = _get(tree, rng.choice(paths))
            parent[key] = copy.deepcopy(other)
    return tree


def to_json(tree: Any) -> str:
    """JSON text of a mutated tree, with nesting too deep for `json.dumps` spliced in."""
    text = json.dumps(tree)
    for depth in (10, 1000, 20000):
        text = text.replace(f'"@@nest:{depth}@@"', "[" * depth + "0" + "]" * depth)
    return text


def rezip(data: bytes, rng: random.Random, canary: str) -> bytes:
    """The archive rebuilt with its config mutated as JSON (other members as they were)."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for info in source.infolist():
            member = source.read(info)
            if info.filename == "config.json":
                tree = mutate_json(json.loads(member), rng, canary)
                member = to_json(tree).encode()
            z.writestr(info, member)
    return out.getvalue()


def zip_trick(data: bytes, rng: random.Random, canary: str) -> bytes:
    """Zip-level forgeries: duplicate members, lying local headers, bombs."""
    source = zipfile.ZipFile(io.BytesIO(data))
    members = [(info, source.read(info)) for info in source.infolist()]
    out = io.BytesIO()
    trick = rng.choice(["duplicate", "duplicate", "bomb", "rename_local", "deflate"])
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w") as z:
        warnings.simplefilter("ignore")  # "Duplicate name": the forgery is the point
        for info, member in members:
            if trick == "duplicate" and info.filename == "config.json":
                evil = mutate_json(json.loads(member), rng, canary)
                z.writestr("config.json", member)
                z.writestr("config.json", to_json(evil))
                continue
            if trick == "bomb" and info.filename == "config.json":
                z.writestr(zipfile.ZipInfo("config.json"), b" " * 2**26 + member,
                           compress_type=zipfile.ZIP_DEFLATED)
                continue
            if trick == "deflate":
                info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, member)
    result = bytearray(out.getvalue())
    if trick == "bomb":  # the central directory now under-declares the inflated size
        at = result.find(b"PK\x01\x02")
        while at != -1:
            name_len = int.from_bytes(result[at + 28 : at + 30], "little")
            if result[at + 46 : at + 46 + name_len] == b"config.json":
                result[at + 24 : at + 28] = (1000).to_bytes(4, "little")
            at = result.find(b"PK\x01\x02", at + 4)
    if trick == "rename_local":
        at = result.find(b"config.json")
        if at != -1:
            result[at : at + 11] = b"config.jsoX"
    return bytes(result)


# --- the parent -----------------------------------------------------------------------
class Worker:
    """A long-lived loading process; replaced when it hangs or dies."""

    def __init__(self, warmup: dict[str, str], timeout: float) -> None:
        self.timeout = timeout
        self.warmup = warmup
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if os.environ.get("LAMINA_FUZZ_DEBUG") else subprocess.DEVNULL,
            text=True,
            # HDF5 can loop forever in C on a forged file; the out-of-process probe turns
            # that into a refusal after this limit, which must be below the case's own.
            env={**os.environ, "LAMINA_SAVING_PROBE_TIMEOUT": str(self.timeout / 4)},
            start_new_session=True,  # so `stop` ends the worker's own children too
        )
        answer = self._ask({"warmup": True, "files": self.warmup}, timeout=300)
        if answer.get("outcome") != "ready":
            raise RuntimeError(f"The worker did not start: {answer}")

    def _ask(self, case: dict[str, Any], timeout: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(case) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.stop()
            return {"outcome": "hang"}
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            self.proc = None
            return {"outcome": "crash", "type": f"exit {code}"}
        result: dict[str, Any] = json.loads(line)
        return result

    def run(self, case: dict[str, Any]) -> dict[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        return self._ask(case, self.timeout)

    def stop(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            self.proc = None


def make_case(
    kind: str, valid: dict[str, Any], rng: random.Random, folder: pathlib.Path, canary: str, n: int
) -> dict[str, Any]:
    files, reference = valid["files"], valid["reference"]
    if kind == "config" and valid["grammar"]:
        chosen = rng.choice(valid["grammar"])
        data = rezip(pathlib.Path(chosen["path"]).read_bytes(), rng, canary)
        reference = chosen["reference"]
        path = folder / f"case{n}.lamina"
    elif kind in ("archive", "zip", "config"):
        mutate = {"archive": mutate_bytes, "zip": zip_trick, "config": rezip}[kind]
        data = pathlib.Path(files["archive"]).read_bytes()
        data = mutate(data, rng) if kind == "archive" else mutate(data, rng, canary)
        path = folder / f"case{n}.lamina"
    elif kind == "index":
        index = json.loads(pathlib.Path(files["index"]).read_text())
        data = to_json(mutate_json(index, rng, canary)).encode()
        if rng.random() < 0.3:  # or a damaged shard under a valid index
            shard = pathlib.Path(rng.choice(valid["shards"]))
            damaged = mutate_bytes(shard.read_bytes(), rng)
            data = pathlib.Path(files["index"]).read_text().replace(
                shard.name, f"case{n}_{shard.name}"
            ).encode()
            (folder / f"case{n}_{shard.name}").write_bytes(damaged)
        path = folder / f"case{n}.weights.json"
        for shard_path in valid["shards"]:  # the index names shards beside it
            target = folder / pathlib.Path(shard_path).name
            if not target.exists():
                target.write_bytes(pathlib.Path(shard_path).read_bytes())
    else:
        data = mutate_bytes(pathlib.Path(files[kind]).read_bytes(), rng)
        path = folder / f"case{n}{'.ckpt.h5' if kind == 'checkpoint' else '.weights.h5'}"
    path.write_bytes(data)
    return {"kind": kind, "path": str(path), "reference": reference, "canary": canary}


def fuzz(cases: int, seed: int, timeout: float, grammar_models: int) -> dict[str, Any]:
    import lamina  # noqa: F401 (the parent saves the valid files with it)

    rng = random.Random(seed)
    counts: dict[str, collections.Counter[str]] = {k: collections.Counter() for k in KINDS}
    findings: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="lamina-fuzz-") as work:
        root = pathlib.Path(work)
        (root / "valid").mkdir()
        canary = root / "canary"
        canary.mkdir()
        valid = make_valid_files(root / "valid", seed, grammar_models)
        worker = Worker(valid["files"], timeout)
        started = time.perf_counter()
        try:
            for n in range(cases):
                kind = KINDS[n % len(KINDS)]
                folder = root / f"c{n % 50}"
                folder.mkdir(exist_ok=True)
                case = make_case(kind, valid, rng, folder, str(canary), n)
                result = worker.run(case)
                counts[kind][result["outcome"]] += 1
                if result["outcome"] not in OK:
                    kept = root.parent / f"lamina-fuzz-finding-{seed}-{n}"
                    pathlib.Path(case["path"]).replace(kept)
                    findings.append({"case": n, "kind": kind, "file": str(kept), **result})
                for leftover in canary.iterdir():
                    leftover.unlink()
                pathlib.Path(case["path"]).unlink(missing_ok=True)
        finally:
            worker.stop()
        elapsed = time.perf_counter() - started
    totals = collections.Counter()
    for counter in counts.values():
        totals.update(counter)
    return {
        "cases": cases,
        "seconds": round(elapsed, 1),
        "cases_per_second": round(cases / elapsed, 2) if elapsed else None,
        "outcomes": dict(totals),
        "by_kind": {k: dict(v) for k, v in counts.items()},
        "findings": findings,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per case")
    parser.add_argument("--grammar-models", type=int, default=12)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    if args.worker:
        worker_main()
        return 0
    report = fuzz(args.cases, args.seed, args.timeout, args.grammar_models)
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{report['cases']} cases in {report['seconds']} s "
              f"({report['cases_per_second']} cases/s): {report['outcomes']}")
        for kind, outcomes in report["by_kind"].items():
            print(f"  {kind:10s} {outcomes}")
        for finding in report["findings"][:50]:
            print(f"  finding: {finding}")
    return 1 if report["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())

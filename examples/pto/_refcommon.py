"""Shared command-line handling for the numpy reference scripts of examples/pto.

Each NAME_ref.py calls main(inputs, outputs, expected, rtol, atol): inputs(rng) returns the
input arrays by argument name, outputs maps each output argument to its shape, expected(d)
computes the expected outputs (as float64) from the inputs. Usage:

    python3 NAME_ref.py gen DIR              write DIR/<arg>.npy for every input (and a zeroed
                                             output buffer DIR/<output>.npy)
    python3 NAME_ref.py check DIR OUT.npy    compare OUT.npy with the expected output; exit 0
                                             if within tolerance, 1 otherwise
"""
import os
import sys

import numpy as np


def main(inputs, outputs, expected, rtol=1e-5, atol=1e-6):
    """inputs(rng) -> dict of arrays; outputs: {name: shape}; expected(dict) -> {name: array}."""
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "gen":
        out_dir = args[1]
        os.makedirs(out_dir, exist_ok=True)
        data = inputs(np.random.default_rng(20240607))
        for name, arr in data.items():
            np.save(os.path.join(out_dir, name + ".npy"), arr)
        for name, shape in outputs.items():
            np.save(os.path.join(out_dir, name + ".npy"), np.zeros(shape, dtype=np.float32))
        print("wrote", ", ".join(sorted(list(data) + list(outputs))), "to", out_dir)
        return 0
    if len(args) >= 3 and args[0] == "check":
        in_dir, out_files = args[1], args[2:]
        data = {n: np.load(os.path.join(in_dir, n + ".npy")) for n in inputs(np.random.default_rng(0))}
        want = expected(data)
        names = list(outputs)
        if len(out_files) != len(names):
            print(f"check needs {len(names)} output file(s), in this order: {' '.join(names)}")
            return 2
        ok = True
        for name, path in zip(names, out_files):
            got = np.load(path)
            exp = want[name]
            if got.size != exp.size:
                print(f"{name}: {got.size} elements, expected {exp.size}")
                ok = False
                continue
            got = got.reshape(exp.shape).astype(np.float64)
            err = np.abs(got - exp)
            bound = atol + rtol * np.abs(exp)
            bad = int(np.count_nonzero(~(err <= bound)))
            worst = float(np.max(err)) if err.size else 0.0
            status = "ok" if bad == 0 else "MISMATCH"
            print(f"{name}: {status}: max abs error {worst:.3e}, {bad} of {exp.size} elements "
                  f"outside atol={atol:g} rtol={rtol:g}")
            ok = ok and bad == 0
        return 0 if ok else 1
    print(sys.modules["__main__"].__doc__ or __doc__)
    return 2

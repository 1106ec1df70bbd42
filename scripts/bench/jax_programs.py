#!/usr/bin/env python3
"""Writes the benchmark corpus of real-shaped JAX programs into a directory.

    .venv/bin/python scripts/bench/jax_programs.py OUTDIR [--sizes 10k,100k] [--weights-mib 64]

For each size: a transformer training step (embedding, attention with softmax, layer norm, an MLP,
cross-entropy loss, the gradient by jax.grad and an Adam update), unrolled over as many layers as it
takes to reach about that many ops, lowered with jax.jit(...).lower(...):
  transformer-SIZE.generic.mlir            generic form, with locations
  transformer-SIZE.generic.noloc.mlir      generic form, locations stripped
  transformer-SIZE.pretty.mlir             pretty form, with locations
  transformer-SIZE.pretty.noloc.mlir       pretty form, locations stripped
With --weights-mib N: weights-N.mlir, a small program whose weights are dense constants of N MiB in
all (jax.jit over closed-over numpy arrays), for the large-constant round trip.
manifest.json records each file's op count (as MLIR counts them) and size.
"""

import argparse
import json
import os
import sys

import numpy as np


def parse_size(text):
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * scale)


def transformer_step(layers, d_model=64, heads=4, seq=16, vocab=128, batch=2):
    import jax
    import jax.numpy as jnp

    head_dim = d_model // heads

    def layer_norm(x, scale, bias):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        centered = x - mean
        # x * x, not jnp.square: that lowers to chlo.square, which has no VHLO form.
        var = jnp.mean(centered * centered, axis=-1, keepdims=True)
        return centered * jax.lax.rsqrt(var + 1e-5) * scale + bias

    def attention(x, p):
        q = (x @ p["wq"]).reshape(batch, seq, heads, head_dim)
        k = (x @ p["wk"]).reshape(batch, seq, heads, head_dim)
        v = (x @ p["wv"]).reshape(batch, seq, heads, head_dim)
        logits = jnp.einsum("bqhd,bkhd->bhqk", q, k) / np.sqrt(head_dim).astype(np.float32)
        mask = jnp.tril(jnp.ones((seq, seq), bool))
        logits = jnp.where(mask, logits, -1e9)
        weights = jax.nn.softmax(logits, axis=-1)
        out = jnp.einsum("bhqk,bkhd->bqhd", weights, v).reshape(batch, seq, d_model)
        return out @ p["wo"]

    def block(x, p):
        x = x + attention(layer_norm(x, p["ln1_s"], p["ln1_b"]), p)
        h = layer_norm(x, p["ln2_s"], p["ln2_b"])
        h = jax.nn.gelu(h @ p["w1"] + p["b1"])
        return x + h @ p["w2"] + p["b2"]

    def loss_fn(params, tokens, targets):
        x = params["embed"][tokens]
        for p in params["layers"]:
            x = block(x, p)
        logits = layer_norm(x, params["lnf_s"], params["lnf_b"]) @ params["embed"].T
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, targets[..., None], axis=-1))

    def adam(params, grads, m, v, step, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
        mhat = jax.tree.map(lambda m: m / (1 - b1**step), m)
        vhat = jax.tree.map(lambda v: v / (1 - b2**step), v)
        params = jax.tree.map(lambda p, mh, vh: p - lr * mh / (jnp.sqrt(vh) + eps), params, mhat, vhat)
        return params, m, v

    def train_step(params, m, v, step, tokens, targets):
        loss, grads = jax.value_and_grad(loss_fn)(params, tokens, targets)
        params, m, v = adam(params, grads, m, v, step)
        return params, m, v, loss

    f32 = jnp.float32
    sd = jax.ShapeDtypeStruct
    layer = {
        "wq": sd((d_model, d_model), f32), "wk": sd((d_model, d_model), f32),
        "wv": sd((d_model, d_model), f32), "wo": sd((d_model, d_model), f32),
        "ln1_s": sd((d_model,), f32), "ln1_b": sd((d_model,), f32),
        "ln2_s": sd((d_model,), f32), "ln2_b": sd((d_model,), f32),
        "w1": sd((d_model, 4 * d_model), f32), "b1": sd((4 * d_model,), f32),
        "w2": sd((4 * d_model, d_model), f32), "b2": sd((d_model,), f32),
    }
    params = {"embed": sd((vocab, d_model), f32), "lnf_s": sd((d_model,), f32), "lnf_b": sd((d_model,), f32),
              "layers": [dict(layer) for _ in range(layers)]}
    args = (params, params, params, sd((), f32), sd((batch, seq), jnp.int32), sd((batch, seq), jnp.int32))
    return jax.jit(train_step).lower(*args)


def weights_program(mib):
    import jax
    import jax.numpy as jnp

    rng = np.random.default_rng(0)
    # Square f32 matrices of at most 64 MiB each, closed over, so they lower to dense constants.
    per = min(mib, 64)
    n = int(np.sqrt(per * (1 << 20) / 4))
    mats = [rng.standard_normal((n, n), dtype=np.float32) for _ in range(max(1, mib // per))]

    def f(x):
        for w in mats:
            x = jnp.tanh(x @ w)
        return x

    return jax.jit(f).lower(jax.ShapeDtypeStruct((1, n), jnp.float32))


FORMS = {
    "pretty": dict(enable_debug_info=True),
    "generic": dict(enable_debug_info=True, print_generic_op_form=True),
    "pretty.noloc": dict(enable_debug_info=False),
    "generic.noloc": dict(enable_debug_info=False, print_generic_op_form=True),
}


def module_texts(lowered, forms=tuple(FORMS)):
    """The texts of a lowered program in the given forms (by default pretty and generic, with and without
    locations). A 1 GiB weights program asks for one form only: each text is twice its weights in size."""
    from jax._src.interpreters import mlir as jax_mlir  # noqa: F401  (registers the dialects)

    module = lowered.compiler_ir("stablehlo")
    op = module.operation
    return {form: op.get_asm(large_elements_limit=None, **FORMS[form]) for form in forms}, module


def count_ops(module):
    count = 0
    stack = [module.operation]
    while stack:
        op = stack.pop()
        count += 1
        for region in op.regions:
            for block in region.blocks:
                stack.extend(block.operations)
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--sizes", default="10k,100k", help="comma-separated op counts (10k, 100k, 1m)")
    parser.add_argument("--weights-mib", type=int, default=0, help="also write a program with N MiB of dense weights")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    manifest = {}

    # Ops per layer, measured once on a small instance, sizes the unrolled program.
    _, probe = module_texts(transformer_step(2))
    _, probe4 = module_texts(transformer_step(4))
    per_layer = (count_ops(probe4) - count_ops(probe)) / 2
    base = count_ops(probe) - 2 * per_layer
    for size_text in filter(None, args.sizes.split(",")):
        target = parse_size(size_text)
        layers = max(1, round((target - base) / per_layer))
        texts, module = module_texts(transformer_step(layers))
        ops = count_ops(module)
        for form, text in texts.items():
            name = f"transformer-{size_text}.{form}.mlir"
            with open(os.path.join(args.outdir, name), "w") as f:
                f.write(text)
            manifest[name] = {"ops": ops, "layers": layers, "bytes": len(text.encode())}
            print(f"{name}: {ops} ops, {len(text) / (1 << 20):.1f} MiB", file=sys.stderr)
    if args.weights_mib:
        texts, module = module_texts(weights_program(args.weights_mib), forms=("pretty.noloc",))
        name = f"weights-{args.weights_mib}.mlir"
        with open(os.path.join(args.outdir, name), "w") as f:
            f.write(texts["pretty.noloc"])
        manifest[name] = {"ops": count_ops(module), "bytes": len(texts["pretty.noloc"].encode())}
        print(f"{name}: {len(texts['pretty.noloc']) / (1 << 20):.1f} MiB", file=sys.stderr)
    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

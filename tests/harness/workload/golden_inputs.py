#!/usr/bin/env python3
"""Independent re-implementation of the input generator (docs/input-generation.md), written from
the formulas in harness/workload/input_generator.hpp, not from the C++ code. Its output is pasted
into test_input_generator.cpp and docs/input-generation.md as golden values; rerun it only when the
generator is deliberately changed (which changes every workload's inputs).

Roundings to float16 / bfloat16 / float32 use exact rational arithmetic (fractions.Fraction),
ties to even, so they do not share any code path with the C++ bit manipulation."""

import math
from fractions import Fraction

M64 = (1 << 64) - 1


def mix(z):
    z &= M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def fnv1a64(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h ^= b
        h = (h * 0x100000001B3) & M64
    return h


def buffer_seed(case_seed, name):
    return mix(case_seed ^ fnv1a64(name))


def draw(seed, k):
    return mix(seed + (k + 1) * 0x9E3779B97F4A7C15)


def derived_case_seed(workload_seed, case_name):
    return mix(workload_seed ^ fnv1a64(case_name))


def round_binary(x, mant_bits, exp_bits):
    """Bits of x rounded to nearest even in an IEEE format with the given field widths."""
    bias = (1 << (exp_bits - 1)) - 1
    sign = (1 << (mant_bits + exp_bits)) if math.copysign(1.0, x) < 0 else 0
    inf = ((1 << exp_bits) - 1) << mant_bits
    if math.isnan(x):
        return sign | inf | (1 << (mant_bits - 1))
    if math.isinf(x):
        return sign | inf
    a = abs(Fraction(x))
    if a == 0:
        return sign
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, 1 - bias)
    q = a / Fraction(2) ** (e - mant_bits)
    n = math.floor(q)
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    if n == 1 << (mant_bits + 1):
        n >>= 1
        e += 1
    if n < (1 << mant_bits):
        return sign | n
    biased = e + bias
    if biased >= (1 << exp_bits) - 1:
        return sign | inf
    return sign | (biased << mant_bits) | (n - (1 << mant_bits))


INT_RANGES = {
    "int8": (-128, 127, 1, True), "uint8": (0, 255, 1, False), "int16": (-32768, 32767, 2, True),
    "int32": (-2**31, 2**31 - 1, 4, True), "uint32": (0, 2**32 - 1, 4, False),
    "int64": (-2**63, 2**63 - 1, 8, True), "uint64": (0, 2**64 - 1, 8, False),
}


def encode(dtype, v):
    """Little-endian bytes of one element; v is a float (or an exact int for randint)."""
    if dtype == "float64":
        import struct
        return struct.pack("<d", float(v))
    if dtype == "float32":
        return round_binary(float(v), 23, 8).to_bytes(4, "little")
    if dtype == "float16":
        return round_binary(float(v), 10, 5).to_bytes(2, "little")
    if dtype == "bfloat16":
        return round_binary(float(v), 7, 8).to_bytes(2, "little")
    lo, hi, size, signed = INT_RANGES[dtype]
    r = v if isinstance(v, int) else round(v)  # round(): nearest, ties to even
    assert lo <= r <= hi, (dtype, v)
    return (r & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def element(kind, params, dtype, seed, i):
    if kind == "uniform":
        lo, hi = params
        if dtype in INT_RANGES:
            return element("randint", (round(lo), round(hi)), dtype, seed, i)
        u = (draw(seed, i) >> 11) * 2.0 ** -53
        return lo + (hi - lo) * u
    if kind == "normal":
        mean, stddev = params
        u1 = ((draw(seed, 2 * i) >> 11) + 1) * 2.0 ** -53
        u2 = (draw(seed, 2 * i + 1) >> 11) * 2.0 ** -53
        return mean + stddev * math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)
    if kind == "randint":
        lo, hi = params
        v = lo + draw(seed, i) % (hi - lo + 1)
        return v if dtype in INT_RANGES else float(v)
    if kind == "iota":
        start, step = params
        return start + float(i) * step
    if kind == "const":
        return params[0]
    raise ValueError(kind)


def hex_elements(kind, params, dtype, seed, indices):
    return "".join(encode(dtype, element(kind, params, dtype, seed, i)).hex() for i in indices)


if __name__ == "__main__":
    print("fnv1a64('') = 0x%016X" % fnv1a64(""))
    print("fnv1a64('A') = 0x%016X" % fnv1a64("A"))
    print("splitmix64_mix(0x9E3779B97F4A7C15) = 0x%016X" % mix(0x9E3779B97F4A7C15))
    case_seed = derived_case_seed(7, "small")
    seed = buffer_seed(case_seed, "A")
    print("derived_case_seed(7, 'small') = 0x%016X" % case_seed)
    print("buffer_seed(case, 'A') = 0x%016X" % seed)
    for k in range(3):
        print("stream_draw(seed, %d) = 0x%016X" % (k, draw(seed, k)))
    first = range(6)
    rows = [
        ("uniform", (-1.0, 1.0), "float32"), ("uniform", (-1.0, 1.0), "float64"),
        ("uniform", (-1.0, 1.0), "float16"), ("uniform", (-1.0, 1.0), "bfloat16"),
        ("uniform", (-3.0, 5.0), "int32"), ("uniform", (0.0, 1000.0), "float32"),
        ("normal", (0.0, 1.0), "float32"), ("normal", (0.0, 1.0), "float64"),
        ("normal", (0.0, 1.0), "bfloat16"), ("normal", (10.0, 3.0), "int16"),
        ("randint", (-8, 8), "int32"), ("randint", (-8, 8), "int8"), ("randint", (0, 8), "uint8"),
        ("randint", (-5, 5), "float32"), ("randint", (0, 1000000), "int64"),
        ("randint", (0, 2**53), "uint64"),
        ("iota", (0.0, 1.0), "float16"), ("iota", (0.5, 0.25), "float32"), ("iota", (-3.0, 2.0), "int32"),
        ("iota", (2048.0, 1.0), "float16"),
        ("const", (0.1,), "float16"), ("const", (0.1,), "bfloat16"), ("const", (-7.0,), "int8"),
        ("const", (0.1,), "float32"),
    ]
    for kind, params, dtype in rows:
        print('{"%s", {%s}, "%s", "%s"},' % (kind, ", ".join(repr(p) for p in params), dtype,
                                            hex_elements(kind, params, dtype, seed, first)))
    far = [0, 1234567, 2999999]
    print("far uniform float32:", hex_elements("uniform", (-1.0, 1.0), "float32", seed, far))
    print("far normal float32:", hex_elements("normal", (0.0, 1.0), "float32", seed, far))
    print("far randint int32:", hex_elements("randint", (-8, 8), "int32", seed, far))

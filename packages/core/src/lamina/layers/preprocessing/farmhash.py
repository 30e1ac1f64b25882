"""FarmHash `Fingerprint64` (the `farmhashna` 64-bit hash) in pure Python.

TensorFlow buckets strings with ``Fingerprint64(bytes) % num_buckets``
(`tf.strings.to_hash_bucket_fast`), so `Hashing` needs the same 64-bit values to give
Keras's buckets. Written from the published algorithm description; all arithmetic is
modulo 2**64.
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _u64(b: bytes, i: int) -> int:
    return int.from_bytes(b[i : i + 8], "little")


def _u32(b: bytes, i: int) -> int:
    return int.from_bytes(b[i : i + 4], "little")


def _rot(v: int, shift: int) -> int:
    return ((v >> shift) | (v << (64 - shift))) & _MASK if shift else v


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _mix16(u: int, v: int, mul: int) -> int:
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _len0to16(s: bytes) -> int:
    n = len(s)
    if n >= 8:
        mul = _K2 + n * 2
        a = (_u64(s, 0) + _K2) & _MASK
        b = _u64(s, n - 8)
        c = (_rot(b, 37) * mul + a) & _MASK
        d = ((_rot(a, 25) + b) * mul) & _MASK
        return _mix16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _mix16((n + (_u32(s, 0) << 3)) & _MASK, _u32(s, n - 4), mul)
    if n > 0:
        y = (s[0] + (s[n >> 1] << 8)) & 0xFFFFFFFF
        z = (n + (s[n - 1] << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _len17to32(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K1) & _MASK
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _MASK
    d = (_u64(s, n - 16) * _K2) & _MASK
    return _mix16(
        (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK,
        (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK,
        mul,
    )


def _len33to64(s: bytes) -> int:
    n = len(s)
    mul = _K2 + n * 2
    a = (_u64(s, 0) * _K2) & _MASK
    b = _u64(s, 8)
    c = (_u64(s, n - 8) * mul) & _MASK
    d = (_u64(s, n - 16) * _K2) & _MASK
    y = (_rot((a + b) & _MASK, 43) + _rot(c, 30) + d) & _MASK
    z = _mix16(y, (a + _rot((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_u64(s, 16) * mul) & _MASK
    f = _u64(s, 24)
    g = ((y + _u64(s, n - 32)) * mul) & _MASK
    h = ((z + _u64(s, n - 24)) * mul) & _MASK
    return _mix16(
        (_rot((e + f) & _MASK, 43) + _rot(g, 30) + h) & _MASK,
        (e + _rot((f + a) & _MASK, 18) + g) & _MASK,
        mul,
    )


def _weak32(s: bytes, i: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = _u64(s, i), _u64(s, i + 8), _u64(s, i + 16), _u64(s, i + 24)
    a = (a + w) & _MASK
    b = _rot((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rot(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(data: bytes) -> int:
    """FarmHash Fingerprint64 of `data`, as an unsigned 64-bit integer."""
    n = len(data)
    if n <= 16:
        return _len0to16(data)
    if n <= 32:
        return _len17to32(data)
    if n <= 64:
        return _len33to64(data)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v = (0, 0)
    w = (0, 0)
    x = (x * _K2 + _u64(data, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rot((x + y + v[0] + _u64(data, i + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rot((y + v[1] + _u64(data, i + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _u64(data, i + 40)) & _MASK
        z = (_rot((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak32(data, i, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak32(data, i + 32, (z + w[1]) & _MASK, (y + _u64(data, i + 16)) & _MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    i = last64
    w0 = (w[0] + ((n - 1) & 63)) & _MASK
    v0 = (v[0] + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    v = (v0, v[1])
    w = (w0, w[1])
    x = (_rot((x + y + v[0] + _u64(data, i + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rot((y + v[1] + _u64(data, i + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _u64(data, i + 40)) & _MASK
    z = (_rot((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak32(data, i, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak32(data, i + 32, (z + w[1]) & _MASK, (y + _u64(data, i + 16)) & _MASK)
    z, x = x, z
    return _mix16(
        (_mix16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
        (_mix16(v[1], w[1], mul) + x) & _MASK,
        mul,
    )


def _rotl(v: int, shift: int) -> int:
    return ((v << shift) | (v >> (64 - shift))) & _MASK


def _sip_rounds(v: list[int], rounds: int) -> None:
    for _ in range(rounds):
        v[0] = (v[0] + v[1]) & _MASK
        v[1] = _rotl(v[1], 13) ^ v[0]
        v[0] = _rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & _MASK
        v[3] = _rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & _MASK
        v[3] = _rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & _MASK
        v[1] = _rotl(v[1], 17) ^ v[2]
        v[2] = _rotl(v[2], 32)


def siphash24(key: tuple[int, int], data: bytes) -> int:
    """SipHash-2-4 of `data` under a 128-bit key given as two 64-bit halves: the keyed
    hash TensorFlow's `to_hash_bucket_strong` (Keras's salted `Hashing`) uses."""
    k0, k1 = key[0] & _MASK, key[1] & _MASK
    v = [
        k0 ^ 0x736F6D6570736575,
        k1 ^ 0x646F72616E646F6D,
        k0 ^ 0x6C7967656E657261,
        k1 ^ 0x7465646279746573,
    ]
    n = len(data)
    full = n - n % 8
    for i in range(0, full, 8):
        m = _u64(data, i)
        v[3] ^= m
        _sip_rounds(v, 2)
        v[0] ^= m
    last = ((n & 0xFF) << 56) | int.from_bytes(data[full:], "little")
    v[3] ^= last
    _sip_rounds(v, 2)
    v[0] ^= last
    v[2] ^= 0xFF
    _sip_rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]

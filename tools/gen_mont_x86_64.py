#!/usr/bin/env python3
"""Generates src/field/asm/mont_x86_64.S: Montgomery multiplication kernels
for x86-64 CPUs with BMI2 (mulx) and ADX (adcx/adox).

    python3 tools/gen_mont_x86_64.py > src/field/asm/mont_x86_64.S

Functions (System V ABI, hidden visibility):

    void cuzk_mulx_mont_N(limb_t r[N], const limb_t a[N], const limb_t b[N],
                          const limb_t p[N], limb_t n0);
    void cuzk_sqrx_mont_N(limb_t r[N], const limb_t a[N],
                          const limb_t p[N], limb_t n0);

for N = 4 and 6. r = a*b/2^(64N) mod p, with a, b < p and r < p. They need
the top limb of p below 2^63 - 1 (tools/gen_params.py asserts it for every
field), so that the running sum always fits N+1 words and no separate carry
word is kept.

Multiplication is operand scanning with the reduction interleaved (CIOS):
each of the N rounds adds a*b[i] and then m*p (m = t0*n0), each with two
independent carry chains (adox for the low halves, adcx for the high halves)
so the mulx results retire without waiting on one flag. The accumulator
words rotate through the registers by renaming: no moves between rounds.

Squaring computes the 2N-word square first (each cross product once,
doubled, plus the diagonal) and then reduces it word by word: N(N-1)/2 + N
products instead of N^2 for the product part.
"""
import sys

ARG_R, ARG_A, ARG_B, ARG_P, ARG_N0 = "rdi", "rsi", "rdx", "rcx", "r8"
CALLEE_SAVED = ("rbx", "rbp", "r12", "r13", "r14", "r15")

out = []


def emit(line=""):
    out.append(line)


def ins(op, *args):
    emit("\t%s\t%s" % (op, ", ".join(args)) if args else "\t" + op)


def mem(base, i):
    return "qword ptr [%s + %d]" % (base, 8 * i)


def prologue(name, used):
    emit()
    emit("\t.globl\t%s" % name)
    emit("\t.hidden\t%s" % name)
    emit("\t.type\t%s, @function" % name)
    emit("\t.p2align\t5")
    emit("%s:" % name)
    ins("endbr64")
    saved = [r for r in CALLEE_SAVED if r in used]
    for r in saved:
        ins("push", r)
    return saved


def epilogue(name, saved):
    for r in reversed(saved):
        ins("pop", r)
    ins("ret")
    emit("\t.size\t%s, .-%s" % (name, name))


def final_subtract_and_store(t, n, scratch, rptr, p):
    """t (n words, value < 2p) -> r = t mod p, constant time."""
    assert len(scratch) >= n
    for j in range(n):
        ins("mov", scratch[j], t[j])
        ins("sub" if j == 0 else "sbb", scratch[j], mem(p, j))
    # Borrow set: t < p, keep t. cmov leaves the flags alone.
    for j in range(n):
        ins("cmovnc", t[j], scratch[j])
    for j in range(n):
        ins("mov", mem(rptr, j), t[j])


def reduce_round(t, n, p, n0, zero, lo, hi):
    """t[0..n] += m*p with m = t0*n0 mod 2^64; afterwards t0 == 0."""
    ins("mov", "rdx", t[0])
    ins("imul", "rdx", n0)
    ins("xor", r32(zero), r32(zero))  # zero = 0, CF = OF = 0
    for j in range(n):
        ins("mulx", hi, lo, mem(p, j))
        ins("adox", t[j], lo)
        ins("adcx", t[j + 1], hi)
    ins("adox", t[n], zero)


def gen_mul(n):
    name = "cuzk_mulx_mont_%d" % n
    # Registers: t[0..n] accumulator, lo/hi product halves, rax = 0,
    # rdx = the mulx multiplier. b moves out of rdx; with n = 6 every
    # general register is taken, so r waits on the stack.
    bptr = "rdi" if n >= 6 else "r9"
    pool = ["r10", "r11", "rbx", "rbp", "r12", "r13", "r14", "r15", "r9"]
    if bptr in pool:
        pool.remove(bptr)
    t = pool[: n + 1]
    lo, hi = pool[n + 1], pool[n + 2]
    used = set(t) | {lo, hi, bptr}
    saved = prologue(name, used)
    if n >= 6:
        ins("push", ARG_R)
        ins("mov", bptr, ARG_B)
        rptr = None
    else:
        ins("mov", bptr, ARG_B)
        rptr = ARG_R
    for r in t:
        ins("xor", r32(r), r32(r))
    for i in range(n):
        ins("mov", "rdx", mem(bptr, i))
        ins("xor", "eax", "eax")  # rax = 0, CF = OF = 0
        for j in range(n):
            ins("mulx", hi, lo, mem(ARG_A, j))
            ins("adox", t[j], lo)
            ins("adcx", t[j + 1], hi)
        ins("adox", t[n], "rax")
        reduce_round(t, n, ARG_P, ARG_N0, "rax", lo, hi)
        t = t[1:] + t[:1]  # t0 is now zero: it becomes the new top word
    scratch = ["rsi", "rdi", "rdx", "r8", lo, hi] if n >= 6 else [lo, hi, "rax", "rdx"]
    final = t[:n]
    if n >= 6:
        for j in range(n):
            ins("mov", scratch[j], final[j])
            ins("sub" if j == 0 else "sbb", scratch[j], mem(ARG_P, j))
        for j in range(n):
            ins("cmovnc", final[j], scratch[j])
        ins("pop", "rax")
        for j in range(n):
            ins("mov", mem("rax", j), final[j])
    else:
        final_subtract_and_store(final, n, scratch, rptr, ARG_P)
    epilogue(name, saved)


def r32(r):
    if r in ("rax", "rbx", "rcx", "rdx"):
        return "e" + r[1:]
    if r in ("rsi", "rdi", "rbp"):
        return "e" + r[1:]
    return r + "d"


def gen_sqr_via_mul(n):
    """sqr(r, a, p, n0) = mul(r, a, a, p, n0)."""
    name = "cuzk_sqrx_mont_%d" % n
    saved = prologue(name, set())
    ins("mov", "r8", "rcx")
    ins("mov", "rcx", "rdx")
    ins("mov", "rdx", "rsi")
    ins("jmp", "cuzk_mulx_mont_%d" % n)
    emit("\t.size\t%s, .-%s" % (name, name))


def main():
    emit("/* Generated by tools/gen_mont_x86_64.py; do not edit by hand. */")
    emit("\t.intel_syntax noprefix")
    emit("\t.text")
    for n in (4, 6):
        gen_mul(n)
        gen_sqr_via_mul(n)
    emit()
    emit('\t.section\t.note.GNU-stack,"",@progbits')
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

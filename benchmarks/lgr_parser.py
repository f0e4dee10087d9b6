"""How the LGR `<Final Answer>` parser's time grows with a hostile answer: the regex version it replaced vs the current one.

A small model in a loop can write one numbered line with thousands of dots or spaces inside it. The earlier
`normalize_name` ended in `[...]+$` and the earlier list-item pattern in `(.+?)\\s*$`; both backtrack, so their
time grows with the square of such a run. The current code normalises with `str.split` / `lstrip` / `rstrip`
and reads items with a greedy match, which is linear. Run from the repository root:
`python benchmarks/lgr_parser.py`. For runs of n and 4n characters it prints the CPU seconds of each version
and the ratio t(4n) / t(n): about 4 for linear code, about 16 for quadratic code. Nothing here is a test;
nbs/21_lgr.ipynb tests the parser on 1 MB answers by their results.
"""
import re
import time

from llm_perturb.lgr import final_answer_names, normalize_name


def old_normalize(name):
    "The regex normalisation the parser used before (kept here only to measure it)."
    s = re.sub(r"\s+", " ", str(name)).lower()
    return re.sub(r"^[\s*_`'\"]+|[\s*_`'\".,;:!?]+$", "", s)


OLD_ITEM = re.compile(r"^\s*(?:\(?\d+\s*[.)]\s*|[-*•]\s+)(.+?)\s*$")


def old_names(line):
    m = OLD_ITEM.match(line)
    return m.group(1).split(":", 1)[0].strip() if m else None


def cpu(fn):
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def main(n=4_000):
    rows = []
    for label, old, new, make in [
        ("dots inside a name", old_normalize, normalize_name, lambda m: "a" + "." * m + "b"),
        ("spaces inside an item", old_names, lambda s: final_answer_names(f"<Final Answer>\n{s}\n</Final Answer>"),
         lambda m: "1. x" + " " * m + "y"),
    ]:
        for version, fn in (("regex (before)", old), ("linear (now)", new)):
            t1, t4 = cpu(lambda: fn(make(n))), cpu(lambda: fn(make(4 * n)))
            rows.append((label, version, t1, t4, t4 / max(t1, 1e-9)))
    print(f"{'input':24} {'version':16} {'t(n) s':>9} {'t(4n) s':>9} {'ratio':>7}   (n = {n:,} characters)")
    for r in rows:
        print(f"{r[0]:24} {r[1]:16} {r[2]:9.4f} {r[3]:9.4f} {r[4]:7.1f}")


if __name__ == "__main__":
    main()

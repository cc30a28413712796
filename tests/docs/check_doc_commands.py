#!/usr/bin/env python3
"""Every `ktune ...` command of README.md and docs/*.md, checked against the real parser.

Commands come from fenced code blocks (one per shell command, `\\` continuations joined,
`;`, `&&` and `|` separating commands, launchers such as mpirun skipped) and from inline
code spans that start with `ktune` (or a path ending in /ktune). Each is checked:
  - a concrete command is parsed by the binary itself (KTUNE_PARSE_ONLY=1: CLI11 parses it
    and nothing runs), which checks the subcommand, every flag, the choices of an option
    with a fixed set and the options CLI11 requires; placeholders (N, FILE, SPEC...) become
    a value every option type takes;
  - a synopsis (`[--flag X]`, `a|b` alternatives) is checked against the `--help` text of
    its subcommand: every flag exists, every alternative is among an option's choices;
  - in both, the options a command refuses to run without (REQUIRED_OPTIONS below, and
    what --help marks REQUIRED) are given, outside `[...]` in a synopsis. An inline span
    that only names a subcommand (`ktune tune`) is a mention, checked for the subcommand.

  check_doc_commands.py --ktune BUILD/tools/ktune --root SOURCE_DIR
  check_doc_commands.py --ktune BUILD/tools/ktune --self-test
The second form runs the checks on commands made to be wrong and fails unless each is
refused (and the right ones pass).
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys
import tempfile

# Options each subcommand refuses to run without (the commands check them when they run;
# --help may not mark them). A tuple is "one of these".
REQUIRED_OPTIONS = {
    "tune": ["--db"],
    "bench": ["--db"],
    "query": ["--db", "--workload"],
    "export": ["--db", "--out", ("--workload", "--all")],
    "report": ["--db"],
    "sample": ["--db"],
    "ingest": ["--db", "--bundle"],
    "bundle": ["--device", "--out"],
}

# The subcommands a prose span may start with (`export --fallback error`), checked for flags.
SUBCOMMANDS = {"show", "tune", "query", "export", "bundle", "ingest", "space", "db", "devices", "measure",
               "sample", "model", "bench", "report"}
LAUNCHERS = {"mpirun", "mpiexec", "srun", "timeout", "time", "sudo", "env", "exec", "nice"}
SEPARATORS = {";", "&&", "||", "|"}


class Help:
    """What `ktune ... --help` says about one subcommand: flags, choices, required, children."""

    def __init__(self, text):
        self.flags = set()
        self.choices = {}
        self.required = set()
        self.subcommands = set()
        section = None
        for line in text.splitlines():
            if re.match(r"^\S.*:$", line):
                section = line[:-1]
                continue
            m = re.match(r"^  (\S+)(.*)$", line)
            if not m:
                continue
            names, rest = m.group(1), m.group(2)
            if section == "Subcommands":
                self.subcommands.add(names)
            elif section == "Options" and names.startswith("-"):
                flags = re.findall(r"--?[A-Za-z0-9][\w-]*", names)
                self.flags.update(flags)
                choice = re.search(r":\{([^}]*)\}", rest)
                required = " REQUIRED" in rest
                for flag in flags:
                    if choice:
                        self.choices[flag] = choice.group(1).split(",")
                    if required:
                        self.required.add(flag)


class Checker:
    def __init__(self, ktune, workdir):
        self.ktune = ktune
        self.workdir = workdir  # commands parse here, so nothing they name lands in the tree
        self.helps = {}

    def has_parse_only(self):
        """True when KTUNE_PARSE_ONLY=1 stops the binary before a command runs."""
        env = dict(os.environ, KTUNE_PARSE_ONLY="1")
        probe = [self.ktune, "show", os.path.join(self.workdir, "no-such-spec.json")]
        return subprocess.run(probe, capture_output=True, env=env, cwd=self.workdir).returncode == 0

    def help(self, path):
        key = tuple(path)
        if key not in self.helps:
            run = subprocess.run([self.ktune, *path, "--help"], capture_output=True, text=True)
            self.helps[key] = Help(run.stdout) if run.returncode == 0 else None
        return self.helps[key]

    # The subcommand path of `words` (["db", "stats"]) and the rest; alternatives such as
    # "stats|best" are kept as one word.
    def split_path(self, words):
        path = []
        while words:
            word = words[0]
            parent = self.help(path)
            names = word.split("|")
            if parent is None or not all(n in parent.subcommands for n in names):
                break
            path.append(word)
            words = words[1:]
        return path, words

    def paths(self, path):
        """Every concrete subcommand path of a path with alternatives ("db", "stats|best")."""
        out = [[]]
        for word in path:
            out = [p + [alt] for p in out for alt in word.split("|")]
        return out

    def check(self, words, synopsis, complete):
        """The problems of one command (words after `ktune`), as a list of strings."""
        if not words:
            return []
        if not re.match(r"^[a-z][a-z0-9-]*(\|[a-z][a-z0-9-]*)*$", words[0]):
            return []  # `ktune SUBCOMMAND --help`, `ktune --version`: not a command of the table
        path, rest = self.split_path(words)
        if not path:
            return [f"no subcommand \"{words[0]}\""]
        top = self.help(path[:1])
        if top and top.subcommands and len(path) == 1 and rest and not rest[0].startswith("-"):
            return [f"\"{path[0]}\" has no subcommand \"{rest[0]}\""]
        if top and top.subcommands and len(path) == 1:
            return [] if not complete else [f"\"{path[0]}\" needs a subcommand"]
        if not complete and not (synopsis and any(w.startswith("--") for w in rest)):
            return []  # a mention of a subcommand (`ktune db stats`): it exists
        problems = []
        for concrete in self.paths(path):
            if synopsis:
                problems += self.check_synopsis(concrete, rest)
            else:
                problems += self.check_concrete(concrete, rest)
            if complete:
                problems += self.check_required(concrete, rest, synopsis)
        return sorted(set(problems))

    def check_concrete(self, path, args):
        env = dict(os.environ, KTUNE_PARSE_ONLY="1")
        run = subprocess.run([self.ktune, *path, *args], capture_output=True, text=True, env=env, cwd=self.workdir)
        if run.returncode != 0:
            return [run.stderr.strip() or f"exit {run.returncode}"]
        return []

    def check_synopsis(self, path, args):
        help = self.help(path)
        problems = []
        tokens = [t.strip("[]()") for t in args]
        for i, token in enumerate(tokens):
            for flag in re.findall(r"(?:^|\|)(--?[A-Za-z][\w-]*)", token):
                if flag not in help.flags:
                    problems.append(f"{' '.join(path)}: no option {flag}")
                    continue
                if flag in help.choices and i + 1 < len(tokens):
                    value = tokens[i + 1]
                    for alt in value.split("|"):
                        alt = alt.rstrip(".")
                        if re.match(r"^[a-z][\w:-]*$", alt) and alt not in help.choices[flag]:
                            problems.append(f"{' '.join(path)}: {flag} {alt}: not among {','.join(help.choices[flag])}")
        return problems

    def check_required(self, path, args, synopsis):
        help = self.help(path)
        given = set()
        depth = 0
        for token in args:
            depth += token.count("[")
            if depth == 0 or not synopsis:
                for flag in re.findall(r"(?:^|\||\()(--?[A-Za-z][\w-]*)", token):
                    given.add(flag.split("=")[0])
            depth -= token.count("]")
        wanted = list(REQUIRED_OPTIONS.get(path[0], [])) + sorted(help.required if help else [])
        problems = []
        for need in wanted:
            options = need if isinstance(need, tuple) else (need,)
            if not any(o in given for o in options):
                problems.append(f"{' '.join(path)}: {' or '.join(options)} is required")
        return problems


# --- extracting commands from markdown ------------------------------------------------

PLACEHOLDER = re.compile(r"^(<[^>]*>|[A-Z][A-Z0-9_]*(\.\.\.)?|\.\.\.)$")


def is_ktune(word):
    return word == "ktune" or word.endswith("/ktune")


def shell_words(text):
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        return list(lexer)
    except ValueError:
        return text.split()


ALTERNATIVE = "\u00a6"  # stands for a synopsis's `|` while the line is split into commands


def protect_alternatives(text):
    """A synopsis's `a|b` and the `|` inside its [...] and (...) are no pipes."""
    text = re.sub(r"(?<=\S)\|(?=\S)", ALTERNATIVE, text)
    out = []
    depth = 0
    for c in text:
        depth += c in "[("
        depth -= c in "])"
        out.append(ALTERNATIVE if c == "|" and depth > 0 else c)
    return "".join(out)


def commands_of_line(text):
    """The argument lists after `ktune` of the commands of one shell line."""
    text = protect_alternatives(text.replace("\\|", "|"))
    out = []
    current = []
    for word in shell_words(text) + [";"]:
        if word in SEPARATORS or set(word) <= set(";&|"):
            out.append(current)
            current = []
        else:
            current.append(word.replace(ALTERNATIVE, "|"))
    found = []
    for words in out:
        words = [w for w in words if not re.match(r"^\d?>>?|^<", w)]
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words = words[1:]
        if not words:
            continue
        if is_ktune(words[0]):
            found.append(words[1:])
        elif words[0] in LAUNCHERS:
            for i, w in enumerate(words):
                if is_ktune(w):
                    found.append(words[i + 1:])
                    break
    return found


def is_synopsis(text):
    return bool(re.search(r"\[|\||\(--|\.\.\.", text.replace("\\|", "|")))


def concrete_args(args):
    """Placeholders become "1", which every option type takes; `...` goes."""
    out = []
    for a in args:
        if a == "...":
            continue
        out.append("1" if PLACEHOLDER.match(a) else a)
    return out


def extract(markdown):
    """(line, text, words, synopsis, complete) of every ktune command in a markdown text."""
    found = []
    lines = markdown.split("\n")
    fence = None
    prose = []  # (line number, text) outside fences
    pending = ""
    pending_line = 0
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
            pending = ""
            continue
        if fence is None:
            prose.append((number, line))
            continue
        if fence not in ("", "sh", "bash", "shell", "console"):
            continue
        if stripped.startswith("//"):
            continue
        if not pending:
            pending_line = number
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        text = pending + stripped
        pending = ""
        for words in commands_of_line(text):
            found.append((pending_line, text, words, is_synopsis(text), True))
    # Inline code spans, which may wrap across the lines of a paragraph or a table row.
    paragraph = []
    for number, line in prose + [(len(lines) + 1, "")]:
        if line.strip() and not line.lstrip().startswith("|"):
            paragraph.append((number, line))
            continue
        rows = [[(number, line)]] if line.strip() else []
        for block in ([paragraph] if paragraph else []) + rows:
            joined = " ".join(text for _, text in block)
            for m in re.finditer(r"`([^`]+)`", joined):
                span = m.group(1).strip().replace("\\|", "|")
                words = [w.replace(ALTERNATIVE, "|") for w in shell_words(protect_alternatives(span))]
                while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                    words = words[1:]
                if words and words[0] in SUBCOMMANDS and any(w.startswith("--") for w in words):
                    # `export --fallback error`: a subcommand's flags, named in prose
                    found.append((block[0][0], span, words, True, False))
                    continue
                if not words or not is_ktune(words[0]) or "ktune_" in words[0]:
                    continue
                args = words[1:]
                complete = any(not re.match(r"^[a-z][a-z0-9-|]*$", a) for a in args)
                found.append((block[0][0], span, args, is_synopsis(span), complete))
        paragraph = []
    return found


def check_files(checker, files, root):
    failures = 0
    count = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, shown, words, synopsis, complete in extract(text):
            count += 1
            args = words if synopsis else concrete_args(words)
            problems = checker.check(args, synopsis, complete)
            if problems:
                failures += 1
                rel = os.path.relpath(path, root)
                print(f"{rel}:{line}: {shown}")
                for p in problems:
                    print(f"    {p}")
    return count, failures


# Commands made to be wrong (each must be refused) and right ones (each must pass).
SELF_TEST_WRONG = [
    "ktune export --db t.db --all --out kernels --fallback fail",
    "ktune model train --db t.db --tie-ratio 0.05",
    "ktune bench bench/suite/gemm_1024.json --threads 2",
    "ktune db revalidate --workload layernorm --top 3 --all",
    "ktune frobnicate --db t.db",
    "ktune tune spec.json --db t.db --no-such-flag",
    "ktune query --db t.db --workload gemm --format yaml",
    "ktune export --db F (--workload NAME|KEY ... | --all) --out DIR [--fallback heuristic|fail]",
    "ktune tune SPEC... [--db F] [--budget 8h]",
    "ktune show SPEC... [--chek]",
]
SELF_TEST_WRONG_INLINE = ["`export --fallback fail`", "`model train --tie-ratio 0.05`"]
SELF_TEST_RIGHT_INLINE = ["`export --fallback error`", "`ktune tune`", "`show --check`"]
SELF_TEST_RIGHT = [
    "ktune export --db t.db --all --out kernels --fallback error",
    "ktune model eval --db t.db --tie-ratio 0.05",
    "HL_NUM_THREADS=2 ./build/tools/ktune bench SPEC --db F --threads N",
    "ktune db revalidate --db t.db --workload layernorm --top 3 --all",
    "ktune export --db F (--workload NAME|KEY|SPEC ... | --all) --out DIR [--fallback heuristic|error]",
    "ktune db stats|best|vacuum --db F",
    "ktune tune SPEC... --db F (--budget 8h | --trials N) [--threads N]",
]


def self_test(checker):
    bad = 0
    for text in SELF_TEST_WRONG + SELF_TEST_RIGHT:
        md = f"```\n{text}\n```\n"
        (_, _, words, synopsis, complete), = extract(md)
        problems = checker.check(words if synopsis else concrete_args(words), synopsis, complete)
        wrong = text in SELF_TEST_WRONG
        if wrong != bool(problems):
            bad += 1
            print(f"self-test: {'accepted' if wrong else 'refused'}: {text} {problems}")
    for text in SELF_TEST_WRONG_INLINE + SELF_TEST_RIGHT_INLINE:
        (_, _, words, synopsis, complete), = extract(text + "\n")
        problems = checker.check(words, synopsis, complete)
        wrong = text in SELF_TEST_WRONG_INLINE
        if wrong != bool(problems):
            bad += 1
            print(f"self-test: {'accepted' if wrong else 'refused'}: {text} {problems}")
    inline = extract("Run `ktune bench a.json --threads 2` and\n`ktune query --db F\n--workload W`;\n`ktune tune` runs.\n")
    if [(w, c) for _, _, w, _, c in inline] != [(["bench", "a.json", "--threads", "2"], True),
                                                (["query", "--db", "F", "--workload", "W"], True), (["tune"], False)]:
        bad += 1
        print(f"self-test: inline spans read as {inline}")
    wrong, right = len(SELF_TEST_WRONG + SELF_TEST_WRONG_INLINE), len(SELF_TEST_RIGHT + SELF_TEST_RIGHT_INLINE)
    print(f"self-test: {wrong} wrong commands refused, {right} right ones passed"
          if not bad else f"self-test: {bad} failure(s)")
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ktune", required=True, help="the built ktune binary")
    parser.add_argument("--root", help="the source tree: README.md and docs/*.md are checked")
    parser.add_argument("--self-test", action="store_true", help="check the checker on wrong commands")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as workdir:
        checker = Checker(os.path.abspath(args.ktune), workdir)
        if not checker.has_parse_only():
            print(f"{args.ktune}: KTUNE_PARSE_ONLY=1 does not stop it before running; refusing to run documented commands")
            return 1
        if args.self_test:
            return self_test(checker)
        return check_docs(checker, args.root)


def check_docs(checker, root):
    files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    count, failures = check_files(checker, files, root)
    if failures:
        print(f"{failures} of {count} documented ktune commands would not run as written")
        return 1
    print(f"ok: {count} documented ktune commands parse, with their required options")
    return 0


if __name__ == "__main__":
    sys.exit(main())

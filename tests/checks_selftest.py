#!/usr/bin/env python3
"""
checks_selftest.py - checks that check-deps, check-writers and docs.py can fail (make
check-selftest, run by make test).

Copies the tree's C sources to a temporary folder and runs tests/deps.py and
tests/writers.py on it with --root: on the clean copy each must exit 0; then
it plants one violation at a time (an upward include, a circle between two
modules, a "../" include, kernel/ including the skeleton, kernel/lib
including bpf/, a side-band record applied outside the process model,
vmlinux.h outside the BPF program, the generated profile.proto header
outside the pprof writer, a copy of the code that attaches a program to
perf events outside user/run/prog.c, a JSON member, a computed JSON key, an
OpenMetrics label and # HELP line, a pprof message packed by hand, a table
row of fixed widths and one padded at run time, a format compared and a
case of one outside output.c) and each time the checker must exit 1 and name
the file.  The copy is a git repository with the clean files added and a
file staged then deleted, so the violations are planted in files git does
not track yet, as a new file is before `git add`; the last cases run again
without git, through the checkers' find fallback.  Prints a line for each
case that fails and a summary line; exits 1 if a case fails.  docs.py runs
on planted pages (a checkout's path, a mktemp -d path, a failing command
whose status the page hides, a hidden skip marker) and must exit 1 naming it.
mutants.py must refuse (exit 2) a run that can count nothing: --only naming a
mutation the list does not hold, or only equivalent ones.
"""
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the tree
from sources import sources  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKERS = {'deps': os.path.join(HERE, 'deps.py'), 'writers': os.path.join(HERE, 'writers.py')}

# (what, checker, {file: text appended, or the file's text if it is new}, what the
# checker must print)
CASES = [
    ('an upward include', 'deps',
     {'user/report/output.c': '#include "user/run/cli.h"\n'},
     'user/report/output.c: includes user/run/cli.h'),
    ('a circle between two modules', 'deps',
     {'user/run/zz_a.h': '#include "user/run/zz_b.h"\n',
      'user/run/zz_b.h': '#include "user/run/zz_a.h"\n'},
     'user/run/zz_a.h includes user/run/zz_b.h'),
    ('a ../ include', 'deps',
     {'user/report/output.c': '#include "../run/cli.h"\n'},
     'user/report/output.c: #include "../run/cli.h"'),
    ('a kernel file including the skeleton', 'deps',
     {'kernel/policy/source.c': '#include "bpf/ldlat.skel.h"\n'},
     'kernel/policy/source.c: includes bpf/ldlat.skel.h'),
    ('kernel/lib including the contract', 'deps',
     {'kernel/lib/err.c': '#include "bpf/ldlat.h"\n'},
     'kernel/lib/err.c: includes bpf/ldlat.h'),
    ('a side-band record applied outside the process model', 'deps',
     {'user/top/x.c': '/* PERF_RECORD_FORK in a comment is no violation */\n'
                      'int x(unsigned t) { return t == PERF_RECORD_FORK; }\n'},
     'user/top/x.c:2: names PERF_RECORD_FORK'),
    ('a process changed as a record would, outside the process model', 'deps',
     {'user/c2c/x.c': 'void x(struct procmaps *pm) { procmaps__fork(pm, 2, 1, 0); }\n'},
     'user/c2c/x.c:1: names procmaps__fork'),
    ('vmlinux.h outside the BPF program', 'deps',
     {'tests/suites/check_unit.c': '#include "vmlinux/vmlinux.h"\n'},
     'tests/suites/check_unit.c: includes vmlinux/vmlinux.h'),
    ('the generated profile.proto header outside the pprof writer', 'deps',
     {'user/top/x.c': '#include "user/report/profile.pb-c.h"\n'},
     'user/top/x.c: includes user/report/profile.pb-c.h'),
    ('a pprof message packed outside the pprof writer', 'writers',
     {'user/top/x.c': 'size_t x(void *p, void *b) { return perftools__profiles__profile__pack(p, b); }\n'},
     'user/top/x.c:1: a pprof profile built outside'),
    ('a copy of the attach code', 'deps',
     {'user/c2c/x.c':
      'void *x(void *p, int fd) { return bpf_program__attach_perf_event(p, fd); }\n'},
     'user/c2c/x.c: attaches a BPF program to perf events'),
    ('a JSON member written by hand', 'writers',
     {'user/run/x.c': 'const char *x = "{\\"key\\": %d}";\n'},
     'user/run/x.c:1: a JSON member'),
    ('a JSON member with a computed key', 'writers',
     {'user/run/x.c': 'const char *x = "\\"%s\\":%llu";\n'},
     'user/run/x.c:1: a JSON member'),
    ('an OpenMetrics label', 'writers',
     {'user/run/x.c': 'const char *x = "ldlat_loads{class=\\"%s\\"}";\n'},
     'user/run/x.c:1: an OpenMetrics label'),
    ('an OpenMetrics # HELP line', 'writers',
     {'user/top/x.c': 'const char *x = "# HELP ldlat_loads Loads.\\n";\n'},
     'user/top/x.c:1: an OpenMetrics line'),
    ('a CSV line written by hand', 'writers',
     {'user/stat/x.c': 'void x(FILE *f) { fprintf(f, "%llu,,%s,%s,%.2f,\\n", 1ull, "a", "b", 1.0); }\n'},
     'user/stat/x.c:1: a CSV line written by hand'),
    ('a CSV line of four fields', 'writers',
     {'user/stat/x.c': 'void x(FILE *f) { fprintf(f, "%llu;%s;%s;%.2f\\n", 1ull, "a", "b", 1.0); }\n'},
     'user/stat/x.c:1: a CSV line written by hand'),
    ('a table row of fixed widths', 'writers',
     {'user/stat/x.c': 'const char *x = "%10s  %s\\n";\n'},
     'user/stat/x.c:1: a text-table row'),
    ('a table row padded at run time', 'writers',
     {'kernel/abi/x.c': 'const char *x = "%-*s  %s\\n";\n'},
     'kernel/abi/x.c:1: a text-table row'),
    ('a renderer chosen by the format outside output.c', 'writers',
     {'user/top/x.c': 'int x(const struct output_opts *o) { return o->format == OUTPUT_JSON; }\n'},
     'user/top/x.c:1: a choice by the format'),
    ('a switch on the format outside output.c', 'writers',
     {'user/stat/x.c': 'void x(enum output_format f) {\n\tswitch (f) {\n\tcase OUTPUT_TEXT:\n'
                       '\t\tbreak;\n\t}\n}\n'},
     'user/stat/x.c:3: a choice by the format'),
]
# run again on the copy without git
WITHOUT_GIT = ('an upward include', 'a JSON member written by hand')


# (what, a docs page, what docs.py must print): docs.py runs a page's commands
# as root, so these run where it can (make test runs as root)
DOCS_CASES = [
    ('a checkout\'s tools.conf path', '```\n$ echo /work/wt-x/tools.conf\n/work/wt-x/tools.conf\n```\n',
     "quotes a development checkout's path"),
    ('a mktemp -d directory', '```\n$ echo /tmp/tmp.AbC123/x\n/tmp/tmp.AbC123/x\n```\n',
     "quotes a development checkout's path"),
    ('a failing command whose status the page hides', '```\n$ false\n```\n',
     'exited 1, and the page does not show its status'),
    ('a hidden skip marker', '<!-- docs: skip because -->\n```\n$ true\n```\n',
     'a hidden skip marker'),
]


def docs_cases(expect_docs):
    if os.geteuid() != 0:
        print('check-selftest: docs.py cases not run: they need root (make test runs as root)')
        return
    for what, page, text in DOCS_CASES:
        expect_docs(what, page, text)
    # the running kernel's build ID, as a page written here would quote it
    sys.path.insert(0, HERE)
    import docs  # noqa: E402 (the checker's own reading of /sys/kernel/notes)
    if docs.KERNEL_BUILD_ID:
        expect_docs('this kernel\'s build ID', '```\n$ echo %s\n%s\n```\n' % (
            (docs.KERNEL_BUILD_ID,) * 2), "quotes this machine's kernel build ID")


def run(checker, root):
    p = subprocess.run([sys.executable, CHECKERS[checker], '--root', root],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


def plant(root, files):
    """Writes the violation; returns how to take it back."""
    saved = {}
    for f, text in files.items():
        path = os.path.join(root, f)
        if os.path.exists(path):
            with open(path, encoding='utf-8') as fh:
                saved[f] = fh.read()
            with open(path, 'a', encoding='utf-8') as fh:
                fh.write(text)
        else:
            saved[f] = None
            with open(path, 'w', encoding='utf-8') as fh:
                fh.write(text)
    return saved


def restore(root, saved):
    for f, text in saved.items():
        path = os.path.join(root, f)
        if text is None:
            os.remove(path)
        else:
            with open(path, 'w', encoding='utf-8') as fh:
                fh.write(text)


def main():
    top = os.path.join(HERE, '..')
    passed, failed = 0, []

    def expect(what, checker, root, rc_want, text=None):
        nonlocal passed
        rc, out = run(checker, root)
        if rc == rc_want and (text is None or text in out):
            passed += 1
        else:
            want = f'exit {rc_want}' + (f' naming "{text}"' if text else '')
            failed.append(f'{what} ({checker}.py): wanted {want}, got exit {rc}:\n'
                          + ''.join('    ' + line + '\n' for line in out.splitlines()[:5]))

    def expect_docs(what, page, text):
        nonlocal passed
        with tempfile.NamedTemporaryFile('w', suffix='.md', prefix='ldlat-docs.') as fh:
            fh.write(page)
            fh.flush()
            p = subprocess.run([sys.executable, os.path.join(HERE, 'docs.py'), fh.name],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode == 1 and text in p.stdout:
            passed += 1
        else:
            failed.append(f'{what} (docs.py): wanted exit 1 naming "{text}", got exit '
                          f'{p.returncode}:\n' + ''.join(
                              '    ' + line + '\n' for line in p.stdout.splitlines()[:5]))

    with tempfile.TemporaryDirectory(prefix='ldlat-checks.') as root:
        for f in sources(top):
            os.makedirs(os.path.join(root, os.path.dirname(f)), exist_ok=True)
            shutil.copy(os.path.join(top, f), os.path.join(root, f))
        git = shutil.which('git') is not None
        if git:
            def g(*args):
                subprocess.run(['git', '-C', root, '-c', 'init.defaultBranch=main'] + list(args),
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            g('init', '-q')
            with open(os.path.join(root, 'user/run/zz_gone.c'), 'w') as fh:
                fh.write('#include "user/report/json.h"\n')
            g('add', '-A')
            os.remove(os.path.join(root, 'user/run/zz_gone.c'))  # staged, gone from disk
            for checker in CHECKERS:
                expect('the clean copy, a staged file deleted', checker, root, 0)
            for what, checker, files, text in CASES:
                saved = plant(root, files)
                expect(what, checker, root, 1, text)
                restore(root, saved)
            shutil.rmtree(os.path.join(root, '.git'))
        for checker in CHECKERS:
            expect('the clean copy without git', checker, root, 0)
        for what, checker, files, text in CASES:
            if git and what not in WITHOUT_GIT:
                continue
            saved = plant(root, files)
            expect(what + ', without git', checker, root, 1, text)
            restore(root, saved)
    docs_cases(expect_docs)

    # mutants.py: a run that can count nothing must not score (it once scored "0 of 0" 100%)
    def expect_mutants(what, args, text, listing=None):
        nonlocal passed
        with tempfile.NamedTemporaryFile('w', suffix='.txt', prefix='ldlat-mutations.') as fh:
            if listing is not None:
                fh.write(listing)
                fh.flush()
                args = ['--list', fh.name] + args
            p = subprocess.run([sys.executable, os.path.join(HERE, 'mutants', 'mutants.py')]
                               + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=60)
        if p.returncode == 2 and text in p.stdout:
            passed += 1
        else:
            failed.append(f'{what} (mutants.py): wanted exit 2 naming "{text}", got exit '
                          f'{p.returncode}:\n' + ''.join(
                              '    ' + line + '\n' for line in p.stdout.splitlines()[:5]))
    expect_mutants('--only a mutation the list does not hold', ['--only', 'no-such-mutation'],
                   'no such mutation no-such-mutation')
    expect_mutants('--only one known, one not', ['--only', 'tgid-loop-16th,no-such-mutation'],
                   'no such mutation no-such-mutation')
    expect_mutants('--only an equivalent mutation', ['--only', 'eq-only'], 'would count nothing',
                   '== eq-only bpf/ldlat.h check_unit\nequivalent: planted by the selftest\n'
                   '<<<\n\tfor (i = 0; i < LDLAT_MAX_TGIDS; i++) {\n===\n'
                   '\tfor (i = 0; LDLAT_MAX_TGIDS > i; i++) {\n>>>\n')
    for f in failed:
        print('check-selftest: ' + f, end='')
    print(f'check-selftest: {passed} passed, {len(failed)} failed')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())

"""
sources.py - the C sources the checks read (tests/deps.py, tests/writers.py).

The files git knows of, tracked or new and not ignored (a file is checked
before it is added), that are still on disk; in a tree without git, every .c
and .h under it but build/ and hidden folders.  Paths are relative to the
top of the tree, sorted.
"""
import os
import subprocess


def is_git_top(root):
    try:
        top = subprocess.check_output(['git', '-C', root, 'rev-parse', '--show-toplevel'],
                                      stderr=subprocess.DEVNULL).decode().strip()
    except (OSError, subprocess.CalledProcessError):
        return False
    return os.path.realpath(top) == os.path.realpath(root)


def sources(root, exts=('.c', '.h')):
    if is_git_top(root):
        out = subprocess.check_output(
            ['git', '-C', root, 'ls-files', '--cached', '--others', '--exclude-standard', '-z']
            + ['*' + e for e in exts], stderr=subprocess.DEVNULL).decode()
        files = set(out.split('\0')) - {''}
    else:
        files = set()
        for r, ds, fs in os.walk(root):
            rel = os.path.relpath(r, root)
            if rel == '.':
                ds[:] = [d for d in ds if d != 'build' and not d.startswith(('build-', '.'))]
            else:
                ds[:] = [d for d in ds if not d.startswith('.')]
            files.update(os.path.normpath(os.path.join(rel, f)) for f in fs if f.endswith(exts))
    return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))

# SPDX-License-Identifier: GPL-2.0
"""TAP for the Python test drivers (tests/tap.sh for the shell ones, tests/tap.h for C)."""


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def plan(self, n):
        print("1..%d" % n, flush=True)

    def ok(self, cond, name):
        self.n += 1
        if not cond:
            self.failed += 1
        print("%sok %d - %s" % ("" if cond else "not ", self.n, name), flush=True)
        return cond

    def diag(self, text):
        for line in str(text).splitlines():
            print("# " + line)

    def is_(self, got, want, name):
        if not self.ok(got == want, name):
            self.diag("got:  %r\nwant: %r" % (got, want))

    def is_deeply(self, got, want, name):
        if not self.ok(got == want, name):
            for k in sorted(set(got) | set(want)):
                if got.get(k) != want.get(k):
                    self.diag("%s: got %s, want %s" % (k, got.get(k), want.get(k)))

    def done(self):
        return 1 if self.failed else 0

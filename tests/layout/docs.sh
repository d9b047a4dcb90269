#!/bin/sh
# docs.sh - the documentation is self-contained: no file in the repository
# sends the reader to a file outside it (an ENVIRONMENT.md, /work/...), and
# every repository path a Markdown file or script names in backquotes
# (`docs/x.md`, `scripts/y.sh`, `kernels/...`) exists (or is built from
# p.c, or is under orchestrator/).
. tests/cli/lib.sh

if git grep -nE 'ENVIRONMENT\.md|shared/seeds|/work/' -- . ':!tests/layout/docs.sh' >"$tmp/out" 2>&1; then
	fail "references outside the repository"; sed 's/^/  | /' "$tmp/out"
else
	ok "no references outside the repository"
fi
git ls-files '*.md' scripts .ci/run Makefile | while read -r f; do
	grep -oE '`(docs|scripts|kernels|configs|bench|tests|dist|web)/[A-Za-z0-9_./-]+`' "$f" |
		tr -d '`' | sed "s|^|$f |"
done | sort -u >"$tmp/paths"
n=0
while read -r f p; do
	n=$((n + 1))
	case "$p" in *'*'*|*'...'*) continue ;; esac
	# files of the kernel tree under test, not of this repository
	case "$p" in scripts/get_maintainer.pl|scripts/kconfig/*|scripts/config) continue ;; esac
	p=${p%.} p=${p%,}
	# a program built from p.c (bench/web), a file of orchestrator/ (web/model.c)
	[ -e "$p" ] || [ -e "$p.c" ] || [ -e "orchestrator/$p" ] || echo "$f names $p" >>"$tmp/missing"
done <"$tmp/paths"
if [ -s "$tmp/missing" ]; then
	fail "paths named in the docs exist"; sed 's/^/  | /' "$tmp/missing"
else
	ok "the $n repository paths named in the docs exist"
fi
finish

#!/bin/sh
# install.sh - a packager's install: cmake --install into a DESTDIR, then the
# installed binaries run from another directory find their data there:
# "faultline serve" serves the pages from share/faultline/web, "initramfs"
# takes libexec/faultline/fl-agent-static, a configuration's relative
# kernels/ fragment is the installed one. The systemd units pass
# systemd-analyze verify (when it is installed).
. tests/cli/lib.sh

dest=$tmp/dest
DESTDIR=$dest cmake --install "$FL_BUILD_DIR" >"$tmp/install.log" 2>&1 &&
	ok "cmake --install into a DESTDIR" || { fail "cmake --install"; cat "$tmp/install.log"; }
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$FL_BUILD_DIR/CMakeCache.txt")
root=$dest$prefix
bin=$root/bin/faultline
for f in bin/faultline bin/fl-agent libexec/faultline/fl-agent-static \
	share/faultline/web/templates/layout.html share/faultline/web/static/faultline.css \
	share/faultline/kernels/memcg.config share/faultline/kernels/guest-base.config \
	share/doc/faultline/examples/example.yaml lib/systemd/system/faultline-watch.service \
	lib/systemd/system/faultline-serve.service lib/systemd/system/fl-agent.service \
	lib/sysusers.d/faultline.conf share/man/man1/faultline.1 share/man/man5/faultline.yaml.5 \
	share/man/man8/fl-agent.8 share/bash-completion/completions/faultline \
	share/bash-completion/completions/fl-agent; do
	[ -e "$root/$f" ] && ok "installed $f" || fail "installed $f"
done
[ -x "$bin" ] && "$bin" --version >"$tmp/out" && ok "installed faultline runs: $(cat "$tmp/out")" ||
	fail "installed faultline runs"

# From a directory with no web/ and no kernels/.
away=$tmp/elsewhere
mkdir -p "$away"
cd "$away" || exit 1
expect_exit 0 "db init from elsewhere" "$bin" db init --db "$tmp/fl.db"
"$bin" -v serve --db "$tmp/fl.db" --listen 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
i=0
while [ ! -s "$tmp/serve.out" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
url=$(head -1 "$tmp/serve.out")
case "$url" in
http://127.0.0.1:*) ok "serve from elsewhere listens at $url" ;;
*) fail "serve from elsewhere started"; sed 's/^/  | /' "$tmp/serve.err" ;;
esac
python3 - "$url" "$tmp/page" <<'PY' && ok "the dashboard answers 200" || fail "the dashboard answers 200"
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=10) as r:
    open(sys.argv[2], "wb").write(r.read())
    sys.exit(0 if r.status == 200 else 1)
PY
expect_grep "$tmp/page" "faultline.css" "the page is the layout's"
python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + 'static/faultline.css', timeout=10)" \
	"$url" && ok "the installed static files are served" || fail "the installed static files are served"
kill "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 0 ] && ok "serve stops on SIGTERM, exit 0" || fail "serve stops on SIGTERM (exit $rc)"
expect_grep "$tmp/serve.err" "web root $root/bin/../share/faultline/web" "serve used the installed web root"

# The guest's /init: the installed static agent, found from bin/.
expect_exit 0 "initramfs without --agent" env -u FL_AGENT "$bin" initramfs "$tmp/i.cpio"
mkdir "$tmp/x" && (cd "$tmp/x" && cpio -id --quiet <"$tmp/i.cpio")
cmp -s "$tmp/x/init" "$root/libexec/faultline/fl-agent-static" &&
	ok "its /init is the installed fl-agent-static" || fail "its /init is the installed fl-agent-static"

# A configuration naming kernels/ fragments relatively, checked from elsewhere.
sed "s|path: var/|path: $tmp/var/|" "$OLDPWD/configs/example.yaml" >"$tmp/example.yaml"
expect_exit 0 "config check finds the installed kernels/" "$bin" config check "$tmp/example.yaml"
expect_grep "$tmp/out" "$root/bin/../share/faultline/kernels/guest-base.config" \
	"the fragment is the installed one"
cd "$OLDPWD" || exit 1

# The units: directives systemd knows, with the installed binaries.
if command -v systemd-analyze >/dev/null; then
	mkdir "$tmp/units"
	for u in "$root"/lib/systemd/system/*.service; do
		sed "s|$prefix/bin/|$root/bin/|" "$u" >"$tmp/units/${u##*/}"
	done
	grep -h "^ExecStart=" "$root"/lib/systemd/system/*.service | grep -qv "$prefix/bin/" &&
		fail "units run the configured prefix's binaries" ||
		ok "units run the configured prefix's binaries"
	if systemd-analyze verify --man=no --recursive-errors=no "$tmp"/units/*.service \
		>"$tmp/verify" 2>&1 && [ ! -s "$tmp/verify" ]; then
		ok "systemd-analyze verify: the units are clean"
	else
		fail "systemd-analyze verify"
		sed 's/^/  | /' "$tmp/verify"
	fi
	for u in faultline-watch faultline-serve; do
		for k in User=faultline ProtectSystem=strict NoNewPrivileges=yes; do
			expect_grep "$tmp/units/$u.service" "$k" "$u.service has $k"
		done
	done
else
	echo "# systemd-analyze is not installed: the units are not verified"
fi
finish

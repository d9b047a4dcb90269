#!/bin/sh
# kconfig.sh - faultline's tinyconfig in fewer kconfig runs (allnoconfig,
# one merge of tiny.config, arch/x86/configs/tiny.config and the fragments,
# olddefconfig) gives the .config that Linux 6.1's own steps give, byte
# for byte: `make tinyconfig`, merge_config.sh -m of the fragments, `make
# olddefconfig`, as faultline did before. For tinyconfig alone, the demo's
# kernel (guest-base + memcg + profile), each fragment of kernels/ alone and
# guest-base with each other one, on the demo's Linux 6.1 history
# (FL_DEMO_TREE, default var/demo/linux, made when missing). faultline
# build runs with its `make bzImage` stubbed out: only the kconfig steps.
# Prints the time of both ways. Minutes on 2 cores (ctest label kernel).
. tests/cli/lib.sh

[ -f /usr/src/linux-source-6.1.tar.xz ] ||
	{ echo "skip: no /usr/src/linux-source-6.1.tar.xz (apt-get install linux-source-6.1)"; exit 77; }
tree=${FL_DEMO_TREE:-var/demo/linux}
sh kernels/demo/make-history.sh "$tree" || exit 1
tree=$(cd "$tree" && pwd)
work=$FL_BUILD_DIR/kernel-test/kconfig
rm -rf "$work"
mkdir -p "$work/bin" "$work/old"

# make, but no bzImage: faultline's build stops after its kconfig steps
real_make=$(command -v make)
cat >"$work/bin/make" <<EOT
#!/bin/sh
for a; do [ "\$a" = bzImage ] && { echo "kconfig.sh: no bzImage here" >&2; exit 3; }; done
exec $real_make "\$@"
EOT
chmod +x "$work/bin/make"

k=$PWD/kernels
# name, then the fragments
sets="tiny
demo $k/guest-base.config $k/memcg.config $k/profile.config"
for f in "$k"/*.config; do
	n=$(basename "$f" .config)
	sets="$sets
$n $f"
	[ "$n" = guest-base ] || sets="$sets
guest-base+$n $k/guest-base.config $f"
done

{
	echo "var: $work/var"
	echo "trees: [{ name: linux, url: $tree }]"
	echo "kernels:"
	echo "$sets" | while read -r name frags; do
		echo "  - name: $name"
		echo "    base: tinyconfig"
		echo "    missing_option: warning"
		echo "    fragments: [$(echo $frags | sed 's/ /, /g')]"
	done
	echo "build: { slots: 1, timeout: 30m, cache_size: 1G }"
} >"$work/fl.yaml"

# the compiler faultline gives make (CONFIG_CC_VERSION_TEXT comes from it)
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
src=$work/var/slots/0/src
# seconds between two log lines (faultline's log: 2026-12-05T07:30:01.123Z)
secs() {
	awk -v a="$2" -v b="$3" '
		function t(s) { split(substr(s, 12, 12), p, ":"); return p[1] * 3600 + p[2] * 60 + p[3] }
		index($0, a) && !s { s = t($1) } index($0, b) && s { e = t($1) }
		END { printf "%.1f", e - s }' "$1"
}
new_total=0 old_total=0
echo "$sets" | {
	while read -r name frags; do
		PATH=$work/bin:$PATH $FAULTLINE build --config "$work/fl.yaml" --kernel "$name" \
			--rev v6.1-fl1 >"$tmp/out" 2>"$tmp/err"
		expect_grep "$tmp/err" "make allnoconfig (tinyconfig's first step)" \
			"$name: faultline's kconfig in fewer runs"
		expect_grep "$tmp/err" ": make bzImage" "$name: faultline's kconfig steps done"
		new=$(ls -t "$work"/var/slots/0/obj-*/.config | head -n1)
		o=$work/old/$name
		mkdir -p "$o"
		start=$(date +%s.%N)
		{
			make -C "$src" O="$o" CC="$cc" tinyconfig &&
				{ [ -z "$frags" ] || (cd "$o" && sh "$src/scripts/kconfig/merge_config.sh" \
					-m -O "$o" "$o/.config" $frags); } &&
				make -C "$src" O="$o" CC="$cc" olddefconfig
		} >"$o.log" 2>&1 || { fail "$name: the old way failed"; sed 's/^/  | /' "$o.log"; continue; }
		old=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
		newt=$(secs "$tmp/err" " written" ": make bzImage")
		echo "$name: kconfig $newt s (faultline), $old s (make tinyconfig, merge, olddefconfig)"
		new_total=$(awk -v a="$new_total" -v b="$newt" 'BEGIN { print a + b }')
		old_total=$(awk -v a="$old_total" -v b="$old" 'BEGIN { print a + b }')
		if cmp "$o/.config" "$new"; then
			ok "$name: the same .config ($(grep -c '=' "$new") options set)"
		else
			fail "$name: the .config differs"
			diff "$o/.config" "$new" | head -n 20 | sed 's/^/  | /'
		fi
	done
	echo "kconfig in all: $new_total s (faultline), $old_total s (the old way)"
	finish
}

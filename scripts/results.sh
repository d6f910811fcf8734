#!/usr/bin/env bash
# make results: the results of record on the machine at hand, at one
# commit, into one folder (docs/results/DATE/ unless RESULTS_DIR is given).
# Six parts, in order, each a resumable manydb study in a results file of
# its own (see docs/results.md):
#
#   study    the reference study: every variant, settings default and
#            mmap-threshold, RESULTS_STORES stores, RESULTS_RUNS warm runs
#   profile  "where the create time goes": manydb profile of every variant,
#            on the disk and on a tmpfs
#   agent    the agent workload: queries count,recent,get,scan, 2 turns,
#            warm and cold caches, RESULTS_AGENT_STORES stores
#   serve    manydb serve of every variant, RESULTS_STORES stores, pools
#            RESULTS_POOLS, each pool step limited to RESULTS_POOL_TIME
#   vectors  vector memory per agent: embeddings of RESULTS_DIMS values,
#            queries count,knn,recent, 2 turns, warm and cold caches,
#            settings RESULTS_VECTOR_SETTINGS (the engines' default index
#            options and lean's for small stores), RESULTS_VECTOR_STORES
#            stores (libSQL's default index takes seconds per store: see
#            docs/vectors.md)
#   glove    the vectors part on real data: --data glove50 (GloVe 6B's
#            words, 50 values), otherwise the same
#   wordnet  the vectors part on --data minilm-wordnet (WordNet 3.0's
#            glosses embedded by all-MiniLM-L6-v2, 384 values)
#   layouts  one store per agent or one for all: RESULTS_LAYOUT_ENGINES
#            in both layouts (--layout per-agent,shared), settings default
#            and wal (the shared store's journal mode for the stores per
#            agent), queries count,recent,get, a turn, warm and cold
#            caches, the delete phase, RESULTS_STORES agents
#
# Running it again resumes: a finished part is skipped, an unfinished one
# is resumed by the same manydb command (manydb skips the recorded cells;
# profile skips the variants recorded). A part is resumed only on the
# machine and at the commit it started on; otherwise the script says so
# and how to start that part again, and stops. At the end each part's
# records are compressed (PART.jsonl.gz; manydb tables, report and compare
# read them), and tables.md, report.html and README.md (machine, commit,
# commands, start and end of every session of every part) are written.
#
# Settings (environment; the Makefile passes its variables of these names):
#   MANYDB                  manydb binary (bin/manydb)
#   RESULTS_DIR             the folder (docs/results/$(date +%F))
#   RESULTS_ENGINES         variants (all: every variant built here)
#   RESULTS_STORES          stores of the study and serve parts (10000)
#   RESULTS_RUNS            warm runs of the study part (5)
#   RESULTS_HOLD            stores held open, at most the stores (1000)
#   RESULTS_AGENT_STORES    stores of the agent part (2000)
#   RESULTS_AGENT_RUNS      warm runs of the agent part (3)
#   RESULTS_PROFILE_STORES  stores per medium of the profile part (200)
#   RESULTS_VECTOR_STORES   stores of the vectors part (2000)
#   RESULTS_VECTOR_SETTINGS settings of the vectors part (default,lean)
#   RESULTS_DIMS            values per embedding in the vectors part (384)
#   RESULTS_REQUESTS        recorded requests per pool size (20000)
#   RESULTS_POOLS           pool sizes (0,1%,10%,100%)
#   RESULTS_POOL_TIME       time limit of each pool step (3m)
#   RESULTS_LAYOUT_ENGINES  variants of the layouts part (sqlite_capi,sqlite,libsql_capi,turso,obx_nosync,bbolt,postgres,postgres_part)
#   RESULTS_LAYOUT_RUNS     warm and cold runs of the layouts part (2: a cold
#                           run of the shared store evicts its whole file
#                           before each agent's open, 16.5–17.9 s a run for
#                           sqlite_capi at 10,000 agents on the 2-core VM)
#   RESULTS_PARTS           the parts to run now, in order (study,profile,agent,serve,vectors,glove,wordnet,layouts)
#   RESULTS_MAX_LOAD        start a phase only below this load (1; 0: don't wait)
#   RESULTS_ROOT            data root for the stores (data/results)
#   RESULTS_TMPFS           tmpfs root of the profile part (/dev/shm/manydb-profile)
#   FORCE=1                 start even with uncommitted changes
set -euo pipefail

MANYDB=${MANYDB:-bin/manydb}
RESULTS_DIR=${RESULTS_DIR:-docs/results/$(date +%F)}
RESULTS_ENGINES=${RESULTS_ENGINES:-all}
RESULTS_STORES=${RESULTS_STORES:-10000}
RESULTS_RUNS=${RESULTS_RUNS:-5}
RESULTS_HOLD=${RESULTS_HOLD:-1000}
RESULTS_AGENT_STORES=${RESULTS_AGENT_STORES:-2000}
RESULTS_AGENT_RUNS=${RESULTS_AGENT_RUNS:-3}
RESULTS_PROFILE_STORES=${RESULTS_PROFILE_STORES:-200}
RESULTS_VECTOR_STORES=${RESULTS_VECTOR_STORES:-2000}
RESULTS_VECTOR_SETTINGS=${RESULTS_VECTOR_SETTINGS:-default,lean}
RESULTS_DIMS=${RESULTS_DIMS:-384}
RESULTS_REQUESTS=${RESULTS_REQUESTS:-20000}
RESULTS_POOLS=${RESULTS_POOLS:-0,1%,10%,100%}
RESULTS_POOL_TIME=${RESULTS_POOL_TIME:-3m}
RESULTS_LAYOUT_ENGINES=${RESULTS_LAYOUT_ENGINES:-sqlite_capi,sqlite,libsql_capi,turso,obx_nosync,bbolt,postgres,postgres_part}
RESULTS_LAYOUT_RUNS=${RESULTS_LAYOUT_RUNS:-2}
RESULTS_PARTS=${RESULTS_PARTS:-study,profile,agent,serve,vectors,glove,wordnet,layouts}
export RESULTS_PARTS
RESULTS_MAX_LOAD=${RESULTS_MAX_LOAD:-1}
RESULTS_ROOT=${RESULTS_ROOT:-data/results}
RESULTS_TMPFS=${RESULTS_TMPFS:-/dev/shm/manydb-profile}
FORCE=${FORCE:-}

say() { echo "make results: $*" >&2; }
die() {
	say "$*"
	exit 1
}
now() { date -u +%FT%TZ; }

[ -x "$MANYDB" ] || die "$MANYDB is not built: run make build (make results does)"

# The commit: the record must be of one commit of the code, so
# uncommitted changes outside the docs stop it unless FORCE=1. The code
# commit is the last commit that changed anything but docs/, README.md and
# tests (*_test.go): commits of documents (the record itself, docs written
# while it runs) and of tests between the sessions of a record change no
# binary.
git rev-parse HEAD >/dev/null 2>&1 || die "not in a git checkout: the results must name their commit"
not_code=(':(exclude)docs' ':(exclude)README.md' ':(exclude,glob)**/*_test.go')
commit=$(git log -1 --format=%h -- . "${not_code[@]}")
dirty=$(git status --porcelain -- . "${not_code[@]}" 2>/dev/null || true)
if [ -n "$dirty" ]; then
	[ "$FORCE" = 1 ] || die "uncommitted changes (git status): the results must be of one commit; commit them, or FORCE=1 to record anyway (the header then says so)"
	commit="$commit (with uncommitted changes: FORCE=1)"
fi

# The machine: what manydb records of it (host, CPU, cores, memory, kernel)
# and a hash of /etc/machine-id, which tells two machines of one name apart.
machine() {
	local env mid
	env=$("$MANYDB" env --root . 2>/dev/null) || die "$MANYDB env failed"
	mid=unknown
	[ -r /etc/machine-id ] && mid=$(sha256sum /etc/machine-id | cut -c1-12)
	echo "$env" | awk -v mid="$mid" '
		$1 == "host" || $1 == "cpu" || $1 == "cores" || $1 == "memory_kb" || $1 == "kernel" {
			k = $1; $1 = ""; sub(/^ +/, ""); v[k] = $0
		}
		END { printf "host %s, cpu %s, %s cores, %s kB memory, kernel %s, machine-id %s\n", v["host"], v["cpu"], v["cores"], v["memory_kb"], v["kernel"], mid }'
}
here=$(machine)

mkdir -p "$RESULTS_DIR"
say "results in $RESULTS_DIR; machine: $here"

hold=$((RESULTS_HOLD < RESULTS_STORES ? RESULTS_HOLD : RESULTS_STORES))
agent_hold=$((RESULTS_HOLD < RESULTS_AGENT_STORES ? RESULTS_HOLD : RESULTS_AGENT_STORES))
vector_hold=$((RESULTS_HOLD < RESULTS_VECTOR_STORES ? RESULTS_HOLD : RESULTS_VECTOR_STORES))

# part_cmd PART: the manydb command of a part (profile: one per variant,
# VARIANT standing for it).
part_cmd() {
	local out=$RESULTS_DIR/$1.jsonl
	case $1 in
	study) echo "$MANYDB run --engines $RESULTS_ENGINES --settings default,mmap-threshold --stores $RESULTS_STORES --runs $RESULTS_RUNS --hold $hold --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/study --out $out" ;;
	profile) echo "$MANYDB profile --engine VARIANT --stores $RESULTS_PROFILE_STORES --root $RESULTS_ROOT/profile --tmpfs $RESULTS_TMPFS --out $out" ;;
	agent) echo "$MANYDB run --engines $RESULTS_ENGINES --queries count,recent,get,scan --turns 2 --cache warm,cold --stores $RESULTS_AGENT_STORES --runs $RESULTS_AGENT_RUNS --hold $agent_hold --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/agent --out $out" ;;
	vectors) echo "$MANYDB run --engines $RESULTS_ENGINES --settings $RESULTS_VECTOR_SETTINGS --dims $RESULTS_DIMS --queries count,knn,recent --turns 2 --cache warm,cold --stores $RESULTS_VECTOR_STORES --runs $RESULTS_AGENT_RUNS --hold $vector_hold --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/vectors --out $out" ;;
	glove) echo "$MANYDB run --engines $RESULTS_ENGINES --settings $RESULTS_VECTOR_SETTINGS --data glove50 --dims 50 --queries count,knn,recent --turns 2 --cache warm,cold --stores $RESULTS_VECTOR_STORES --runs $RESULTS_AGENT_RUNS --hold $vector_hold --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/glove --out $out" ;;
	wordnet) echo "$MANYDB run --engines $RESULTS_ENGINES --settings $RESULTS_VECTOR_SETTINGS --data minilm-wordnet --dims 384 --queries count,knn,recent --turns 2 --cache warm,cold --stores $RESULTS_VECTOR_STORES --runs $RESULTS_AGENT_RUNS --hold $vector_hold --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/wordnet --out $out" ;;
	layouts) echo "$MANYDB run --engines $RESULTS_LAYOUT_ENGINES --settings default,wal --layout per-agent,shared --queries count,recent,get --turns 1 --cache warm,cold --stores $RESULTS_STORES --runs $RESULTS_LAYOUT_RUNS --hold $hold --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/layouts --out $out" ;;
	serve) echo "$MANYDB serve --engines $RESULTS_ENGINES --stores $RESULTS_STORES --requests $RESULTS_REQUESTS --pool $RESULTS_POOLS --pool-time $RESULTS_POOL_TIME --max-load $RESULTS_MAX_LOAD --load-wait 10s --root $RESULTS_ROOT/serve --out $out" ;;
	esac
}

# field FILE KEY: the value of the first "KEY value" line of a part file.
field() { sed -n "s/^$2 //p" "$1" | head -n 1; }

# check_part PART: an unfinished part started elsewhere, or at another
# commit or with another command, is not resumed here. (Finished parts may
# come from other sessions and machines: each names its own.)
check_part() {
	local pf=$RESULTS_DIR/$1.part was
	[ -f "$pf" ] || return 0
	grep -q '^finished ' "$pf" && return 0 # a finished part may come from another session's machine
	was=$(field "$pf" machine)
	if [ "$was" != "$here" ]; then
		say "part $1 was started on another machine:"
		say "  then: $was"
		say "  here: $here"
		die "a part is never resumed on another machine. To start it again here, move its files aside (nothing is deleted): mv $pf $pf.other; mv $RESULTS_DIR/$1.jsonl $RESULTS_DIR/$1.jsonl.other (if there), or choose another RESULTS_DIR"
	fi
	was=$(field "$pf" commit)
	[ "$was" = "$commit" ] || die "part $1 was started at commit $was; this is $commit. Check that commit out to resume it, or move its files aside to start it again: mv $pf $pf.other; mv $RESULTS_DIR/$1.jsonl $RESULTS_DIR/$1.jsonl.other (if there)"
	was=$(field "$pf" command)
	[ "$was" = "$(part_cmd "$1")" ] || die "part $1 was started with another command (settings of make results changed): $was. Run make results with the same settings to resume it, or move its files aside to start it again: mv $pf $pf.other; mv $RESULTS_DIR/$1.jsonl $RESULTS_DIR/$1.jsonl.other (if there)"
}

# compress PART: the records of a finished part, compressed only (gzip -f
# replaces a .gz left half-written by a kill; gzip removes the plain file
# once the .gz is whole).
compress() {
	local f=$RESULTS_DIR/$1.jsonl
	if [ -f "$f" ]; then
		gzip -f -9 -n "$f"
	fi
}

# profile_done VARIANT: its disk and tmpfs records are in the profile file.
profile_done() {
	local f=$RESULTS_DIR/profile.jsonl
	[ -f "$f" ] || return 1
	grep -F '"phase":"profile"' "$f" | grep -F "\"variant\":\"$1\"" | grep -qF '"medium":"tmpfs"'
}

# run_profile: manydb profile of each variant not recorded yet, with an
# estimate of the end after each. A variant that fails is said and the
# others go on; the part then ends with exit code 3, as a study whose
# phases failed (move profile.part aside to profile it again).
run_profile() {
	local variants v todo=() n=0 t0 el rc=0
	if [ "$RESULTS_ENGINES" = all ]; then
		variants=$("$MANYDB" engines --ids)
	else
		variants=$(echo "$RESULTS_ENGINES" | tr , ' ')
	fi
	for v in $variants; do
		profile_done "$v" || todo+=("$v")
	done
	t0=$(date +%s)
	for v in "${todo[@]}"; do
		# Progress and the table go to the terminal; the records to the file.
		$(part_cmd profile | sed "s/VARIANT/$v/") >&2 || {
			say "profile of $v did not finish (exit $?)"
			rc=3
		}
		n=$((n + 1))
		el=$(($(date +%s) - t0))
		say "profile: ETA $((el * (${#todo[@]} - n) / n))s: $n of ${#todo[@]} variants done in ${el}s this session"
	done
	return $rc
}

# run_part PART: run or resume a part, unless it is finished.
run_part() {
	local part=$1 pf=$RESULTS_DIR/$1.part rc=0
	if [ -f "$pf" ] && grep -q '^finished ' "$pf"; then
		say "part $part: finished (skipped)"
		compress "$part"
		return 0
	fi
	check_part "$part"
	if [ ! -f "$pf" ]; then
		{
			echo "machine $here"
			echo "commit $commit"
			echo "command $(part_cmd "$part")"
		} >"$pf"
	fi
	echo "session $(now)" >>"$pf"
	say "part $part: $(part_cmd "$part")"
	if [ "$part" = profile ]; then
		run_profile || rc=$?
	else
		$(part_cmd "$part") >&2 || rc=$?
	fi
	echo "ended $(now) exit $rc" >>"$pf"
	case $rc in
	0) ;;
	3) say "part $part: some phases failed (their records say why; the tables show them)" ;;
	*) die "part $part stopped (exit $rc); run make results again with the same settings to resume it" ;;
	esac
	echo "finished $(now)" >>"$pf"
	compress "$part"
}

all_parts="study profile agent serve vectors glove wordnet layouts"
parts=$(echo "$RESULTS_PARTS" | tr , ' ')
for p in $parts; do
	case " $all_parts " in
	*" $p "*) ;;
	*) die "RESULTS_PARTS: unknown part \"$p\": use study, profile, agent, serve, vectors, glove, wordnet and layouts" ;;
	esac
done
# Every part of one folder is of one code commit: a part of another
# commit is refused before anything runs.
for p in $all_parts; do
	check_part "$p"
	pf=$RESULTS_DIR/$p.part
	if [ -f "$pf" ] && [ "$(field "$pf" commit)" != "$commit" ]; then
		die "part $p of $RESULTS_DIR was recorded at commit $(field "$pf" commit), this checkout's code is $commit: a record is of one commit; choose another RESULTS_DIR"
	fi
done
for p in $parts; do
	run_part "$p"
done

# The tables, report and header cover the parts finished so far.
files=()
done_parts=""
for p in $all_parts; do
	if [ -f "$RESULTS_DIR/$p.jsonl.gz" ]; then
		files+=("$RESULTS_DIR/$p.jsonl.gz")
		done_parts="$done_parts $p"
	fi
done
parts=$done_parts
"$MANYDB" tables "${files[@]}" >"$RESULTS_DIR/tables.md"
"$MANYDB" report -o "$RESULTS_DIR/report.html" "${files[@]}" >/dev/null

# README.md: the header of the folder, from the part files.
{
	echo "# Results of record, $(basename "$RESULTS_DIR")"
	echo
	echo "Written by \`make results\` (scripts/results.sh; see docs/results.md)."
	echo "Raw records: \`PART.jsonl.gz\` (gzip; \`manydb tables\`, \`report\` and"
	echo "\`compare\` read them as they are); tables: [tables.md](tables.md);"
	echo "report: [report.html](report.html)."
	for p in $parts; do
		pf=$RESULTS_DIR/$p.part
		echo
		echo "## Part $p"
		echo
		echo "- Machine: $(field "$pf" machine)"
		echo "- Commit: $(field "$pf" commit)"
		echo "- Command: \`$(field "$pf" command)\`"
		[ "$p" = profile ] && echo "  for each variant ($RESULTS_ENGINES)"
		sed -n 's/^session \(.*\)/- Session started \1/p; s/^ended \(.*\) exit \(.*\)/  ended \1, exit code \2/p; s/^finished \(.*\)/- Finished \1/p' "$pf"
	done
} >"$RESULTS_DIR/README.md"
say "done: $RESULTS_DIR/README.md, tables.md, report.html"

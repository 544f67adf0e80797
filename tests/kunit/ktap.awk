# SPDX-License-Identifier: GPL-2.0
#
# Turn the KUnit output in a serial console log into result lines
#     kunit<TAB><suite>.<case><TAB>PASS|FAIL|SKIP<TAB><detail>
#
# This reads the KTAP that lib/kunit/test.c (6.1) prints for a module's
# suites: a suite is "    # Subtest: <suite>" and "    1..<n>" at four
# spaces, its cases "    ok|not ok <i> <case>[ # SKIP <why>]" at four spaces,
# parameters of a parameterised case at eight, and the suite ends with
# "ok|not ok <i> <suite>" at column 0. Kernel timestamps are stripped first.
#
# Silence is never success: a suite that stops before its plan is complete
# (the kernel crashed or hung) or fails without a failing case yields FAIL.
# A kernel splat (BUG, WARNING, KASAN, lockdep, ...) printed while a case
# runs fails that case, even when KUnit itself reported it ok.

function emit(name, status, detail) {
	gsub(/\t/, " ", detail)
	if (length(detail) > 300)
		detail = substr(detail, 1, 297) "..."
	printf "kunit\t%s.%s\t%s\t%s\n", suite, name, status, detail
}

function start_suite(name) {
	suite = name; in_suite = 1; plan = -1; seen = 0; failed = 0
	start_case()
}

# State gathered while one case runs, reported with its result line.
function start_case() {
	diag = ""; diag_lines = 0; splat = ""; bad_params = ""
}

function case_result(line,    ok, rest, name, directive, status, detail) {
	ok = line !~ /^not ok /
	rest = line
	sub(/^(not )?ok [0-9]+ /, "", rest)
	name = rest; directive = ""
	if (index(rest, " # ")) {
		name = substr(rest, 1, index(rest, " # ") - 1)
		directive = substr(rest, index(rest, " # ") + 3)
	}
	seen++
	if (splat != "") {
		status = "FAIL"; detail = "kernel splat: " splat
	} else if (directive ~ /^SKIP/) {
		status = "SKIP"; detail = directive; sub(/^SKIP ?/, "", detail)
	} else if (ok) {
		status = "PASS"; detail = ""
	} else {
		status = "FAIL"; detail = diag
		if (index(detail, name ": ") == 1)
			detail = substr(detail, length(name) + 3)
		if (bad_params != "")
			detail = "failing params:" bad_params (diag != "" ? "; " diag : "")
	}
	if (status == "FAIL")
		failed++
	emit(name, status, detail)
	start_case()
}

function end_suite(line) {
	if (plan >= 0 && seen < plan)
		emit("(missing)", "FAIL", sprintf("only %d of %d cases reported", seen, plan))
	else if (line ~ /^not ok / && failed == 0)
		emit("(suite)", "FAIL", "suite failed outside its cases: " (diag != "" ? diag : line))
	in_suite = 0
}

{
	sub(/\r$/, "")
	sub(/^\[ *[0-9]+\.[0-9]+\] /, "")
	line = $0
}

/^    # Subtest: / {
	name = line
	sub(/^    # Subtest: /, "", name)
	start_suite(name)
	next
}

# A suite whose suite_init fails prints only an error and "not ok".
!in_suite && /^    # failed to initialize/ {
	init_err = substr(line, 7)
	next
}

!in_suite && /^not ok [0-9]+ / {
	suite = line
	sub(/^not ok [0-9]+ /, "", suite)
	emit("(suite)", "FAIL", init_err != "" ? init_err : "suite failed before any case ran")
	init_err = ""
	next
}

!in_suite { next }

line ~ SPLAT && splat == "" {
	splat = line
	sub(/^ +/, "", splat)
}

/^    1\.\.[0-9]+$/ {
	plan = line
	sub(/^    1\.\./, "", plan)
	plan += 0
	next
}

/^    (not )?ok [0-9]+ / {
	case_result(substr(line, 5))
	next
}

/^        not ok [0-9]+ / {
	rest = substr(line, 9)
	sub(/^not ok [0-9]+ /, "", rest)
	bad_params = bad_params " " rest
	next
}

/^ +# [^ ]+: / && diag == "" && line !~ /# Subtest: / {
	diag = line
	sub(/^ +# /, "", diag)
	diag_lines = 0
	next
}

# The lines after the first diagnostic say what was expected and what came.
/^     *[^ #]/ && diag != "" && diag_lines < 3 {
	diag_lines++
	rest = line
	sub(/^ +/, "", rest)
	diag = diag " " rest
	next
}

/^(not )?ok [0-9]+ / {
	end_suite(line)
	next
}

END {
	if (in_suite) {
		detail = sprintf("suite did not finish: %d of %s cases reported", seen,
				 plan >= 0 ? plan : "?")
		if (splat != "")
			detail = detail "; kernel splat: " splat
		emit("(unfinished)", "FAIL", detail)
	}
}

package triage

import (
	"path"
	"regexp"
	"strings"
)

// segment is one simple command of a step, read: what it does, the test
// runner or program it starts, and the files it writes.
type segment struct {
	kind StepKind
	// prog is the program word as typed (for "command not found").
	prog string
	// runner names the test runner of a test segment ("pytest", "go
	// test"), or the interpreter of a run.
	runner string
	files  []string
	writes bool
	// checked: a script that writes and then checks what it wrote.
	checked bool
	// op and piped are the shell joints around it (shellCmd).
	op    string
	piped bool
}

// maxShellDepth bounds bash -c "bash -c …" nesting.
const maxShellDepth = 3

// readShell reads a command line as its segments; ok is false when it
// does not parse.
func readShell(cmd string, depth int) ([]segment, bool) {
	cmds, ok := parseShell(cmd)
	if !ok {
		return nil, false
	}
	segs := make([]segment, 0, len(cmds))
	// written maps a script the command writes with a heredoc to its text,
	// so running it in the same command is read by what the script does.
	var written map[string]string
	for i := range cmds {
		c := &cmds[i]
		inner, isShell := shellScript(c, depth)
		if isShell {
			sub, ok := readShell(inner, depth+1)
			if ok && len(sub) > 0 {
				sub[len(sub)-1].op = c.op
				sub[0].piped = c.piped
				segs = append(segs, sub...)
				continue
			}
		}
		s := classifyCmd(c)
		s.op, s.piped = c.op, c.piped
		if s.kind == StepEdit && c.hasHeredoc && len(c.out) > 0 {
			if written == nil {
				written = map[string]string{}
			}
			for _, f := range c.out {
				written[f] = c.heredoc
			}
		}
		if s.kind == StepRun && written != nil {
			for _, w := range c.argv[1:] {
				if body, ok := written[w]; ok && scriptWrites(body) {
					// cat > fix.py <<EOF … EOF && python fix.py: an edit.
					s.kind, s.writes = StepEdit, true
					s.files = append(s.files, scriptTargets(body)...)
				}
			}
		}
		segs = append(segs, s)
	}
	return segs, true
}

// shellScript is the script of bash -c "…", sh -lc "…", or bash with a
// heredoc on stdin.
func shellScript(c *shellCmd, depth int) (string, bool) {
	if depth >= maxShellDepth {
		return "", false
	}
	argv := stripPrefixes(c.argv)
	if len(argv) == 0 {
		return "", false
	}
	switch path.Base(argv[0]) {
	case "bash", "sh", "zsh", "dash":
	default:
		return "", false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "-c" || (len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c")) {
			if i+1 < len(argv) {
				return argv[i+1], true
			}
			return "", false
		}
		if !strings.HasPrefix(a, "-") {
			return "", false // bash script.sh: a run
		}
	}
	if c.hasHeredoc {
		return c.heredoc, true
	}
	return "", false
}

// wrappers are programs that run the rest of their words as a command.
var wrappers = map[string]bool{
	"sudo": true, "env": true, "time": true, "nohup": true, "nice": true, "exec": true, "command": true,
	"builtin": true, "stdbuf": true, "xvfb-run": true, "!": true, "if": true, "then": true, "else": true,
	"elif": true, "do": true, "while": true, "until": true, "{": true, "npx": true, "bunx": true,
	"unbuffer": true, "catchsegv": true, "dotenv": true,
}

// runWrappers are "X run CMD"-style runners of a project environment.
var runWrappers = map[string]bool{"uv": true, "poetry": true, "pipenv": true, "pdm": true, "hatch": true, "rye": true, "conda": true, "mamba": true, "micromamba": true, "pixi": true}

// stripPrefixes drops what only changes how the command runs: variable
// assignments (PYTHONPATH=. …), sudo, env, time, timeout 60, nohup, npx,
// uv run / poetry run / conda run -n x, shell keywords (if, then, do …).
func stripPrefixes(argv []string) []string {
	for len(argv) > 0 {
		w := argv[0]
		b := path.Base(w)
		switch {
		case isAssignment(w):
			argv = argv[1:]
		case wrappers[w] || wrappers[b]:
			argv = argv[1:]
			// Options of the wrapper (env -i, nice -n 5, stdbuf -oL).
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				opt := argv[0]
				argv = argv[1:]
				if (b == "nice" || b == "sudo") && (opt == "-n" || opt == "-u") && len(argv) > 0 {
					argv = argv[1:]
				}
			}
		case b == "timeout" || b == "gtimeout":
			argv = argv[1:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				opt := argv[0]
				argv = argv[1:]
				if (opt == "-s" || opt == "-k" || opt == "--signal" || opt == "--kill-after") && len(argv) > 0 {
					argv = argv[1:]
				}
			}
			if len(argv) > 0 {
				argv = argv[1:] // the duration
			}
		case runWrappers[b] && len(argv) > 1 && argv[1] == "run":
			argv = argv[2:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				opt := argv[0]
				argv = argv[1:]
				if (opt == "-n" || opt == "--name" || opt == "-p" || opt == "--prefix" || opt == "--with" || opt == "--python") && len(argv) > 0 {
					argv = argv[1:]
				}
			}
		case (b == "bundle" || b == "pnpm" || b == "yarn" || b == "npm") && len(argv) > 1 && argv[1] == "exec":
			argv = argv[2:]
		case b == "xargs":
			argv = argv[1:]
			for len(argv) > 0 && strings.HasPrefix(argv[0], "-") {
				opt := argv[0]
				argv = argv[1:]
				if (opt == "-I" || opt == "-n" || opt == "-P" || opt == "-d" || opt == "-L") && len(argv) > 0 {
					argv = argv[1:]
				}
			}
		default:
			return argv
		}
	}
	return argv
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// writerProgs write their input or arguments where their output is
// redirected: a redirect of theirs is an edit; of any other program's
// output (pytest > log.txt) it is a log, not a change to the work.
var writerProgs = map[string]bool{"cat": true, "echo": true, "printf": true, "tee": true, "": true, "envsubst": true}

// classifyCmd reads one simple command.
func classifyCmd(c *shellCmd) segment {
	argv := stripPrefixes(c.argv)
	s := segment{}
	if len(argv) == 0 {
		s.kind = StepOther
		if len(c.out) > 0 {
			// "> file" alone truncates it.
			s.kind, s.files, s.writes = StepEdit, c.out, true
		}
		return s
	}
	s.prog = argv[0]
	prog := path.Base(argv[0])
	args := argv[1:]
	s.kind, s.runner = progKind(prog, argv[0], args, c)
	switch {
	case s.kind == StepEdit && prog == "rm" && onlyBuildDirs(args):
		// rm -rf build before make: clearing outputs, not changing work.
		s.kind = StepOther
	case s.kind == StepEdit:
		s.writes = true
		s.files = append(s.files, editTargets(prog, args)...)
		s.files = append(s.files, c.out...)
	case len(c.out) > 0 && writerProgs[prog] && !c.piped:
		s.kind, s.writes, s.files = StepEdit, true, c.out
	case prog == "tee" && c.piped:
		// echo x | tee f writes f; pytest | tee log only keeps a log.
		if fs := nonOptions(args); len(fs) > 0 {
			s.files, s.writes = fs, true
		}
	case s.kind == StepRun && c.hasHeredoc && scriptWrites(c.heredoc):
		// An inline script that rewrites files is an edit (DESIGN §8),
		// unless it goes on to check what it wrote (a run that writes).
		s.writes, s.files = true, scriptTargets(c.heredoc)
		if !checksAfterWrite(c.heredoc) {
			s.kind = StepEdit
		} else {
			s.checked = true
		}
	case s.kind == StepRun && inlineCode(prog, args) != "" && scriptWrites(inlineCode(prog, args)):
		code := inlineCode(prog, args)
		s.writes, s.files = true, scriptTargets(code)
		if !checksAfterWrite(code) {
			s.kind = StepEdit
		} else {
			s.checked = true
		}
	}
	if len(s.files) > maxStepFiles {
		s.files = s.files[:maxStepFiles]
	}
	return s
}

// buildDirs are outputs and caches a command may clear before building.
var buildDirs = map[string]bool{"build": true, "dist": true, "target": true, "out": true, "__pycache__": true, ".pytest_cache": true,
	"node_modules": true, ".mypy_cache": true, ".tox": true, "cmake-build-debug": true, ".cache": true, "bin": true, "obj": true}

func onlyBuildDirs(args []string) bool {
	ops := nonOptions(args)
	if len(ops) == 0 {
		return false
	}
	for _, o := range ops {
		if !buildDirs[path.Base(strings.TrimRight(o, "/"))] && !strings.HasSuffix(o, ".egg-info") {
			return false
		}
	}
	return true
}

// maxStepFiles bounds the files kept of one step.
const maxStepFiles = 32

func nonOptions(args []string) []string {
	var out []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// inlineCode is the code of python -c CODE, node -e CODE and the like.
func inlineCode(prog string, args []string) string {
	for i, a := range args {
		if (a == "-c" || a == "-e" || a == "--eval") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

var (
	// scriptWrite is how a Python, Node or Ruby script writes a file.
	scriptWrite = regexp.MustCompile(`open\([^)]*,\s*(?:mode\s*=\s*)?['"][wax]b?\+?['"]|\.write_text\(|\.write_bytes\(|writeFileSync\(|fs\.writeFile\(|File\.write\(|shutil\.(?:copy|move)|os\.(?:replace|rename|remove)\(`)
	// scriptPath is a quoted path-like literal in a script.
	scriptPath = regexp.MustCompile(`['"]([\w./-]+\.(?:py|pyi|js|ts|tsx|jsx|go|rs|rb|java|scala|kt|c|h|cc|cpp|hpp|php|json|toml|yaml|yml|cfg|ini|txt|md|rst|html|css|sh))['"]`)
)

// checksAfterWrite reports whether an inline script, after its last
// write, goes on to check the work: an assert, a test run, or importing
// and calling the code it patched (the annotated real logs read such a
// script as a run that writes, not as an edit).
func checksAfterWrite(code string) bool {
	locs := scriptWrite.FindAllStringIndex(code, -1)
	if len(locs) == 0 {
		return false
	}
	rest := code[locs[len(locs)-1][1]:]
	return strings.Contains(rest, "assert ") || strings.Contains(rest, "subprocess") || strings.Contains(rest, "unittest") ||
		strings.Contains(rest, "pytest") || strings.Contains(rest, "\nimport ") || strings.Contains(rest, "\nfrom ") || strings.Contains(rest, "sys.exit(")
}

// agentSkills are OpenHands' agentskills, called from its IPython tool.
var agentSkills = map[string]StepKind{
	"open_file": StepRead, "goto_line": StepRead, "scroll_down": StepRead, "scroll_up": StepRead,
	"search_dir": StepSearch, "search_file": StepSearch, "find_file": StepSearch,
	"edit_file_by_replace": StepEdit, "insert_content_at_line": StepEdit, "append_file": StepEdit, "create_file": StepEdit, "edit_file": StepEdit,
}

// agentSkill reads code that is one agentskills call.
func agentSkill(code string) (StepKind, bool) {
	t := strings.TrimSpace(code)
	if strings.HasPrefix(t, "{") {
		// The tool's arguments as JSON: {"code": "open_file(…)"}.
		if i := strings.Index(t, `"code"`); i >= 0 {
			t = strings.TrimLeft(t[i+len(`"code"`):], ` :"`)
		}
	}
	p := strings.IndexByte(t, '(')
	if p <= 0 {
		return 0, false
	}
	k, ok := agentSkills[strings.TrimSpace(t[:p])]
	return k, ok
}

func scriptWrites(code string) bool {
	return strings.ContainsAny(code, "(") && scriptWrite.MatchString(code)
}

// scriptTargets guesses the files an inline script writes: the quoted
// paths it names.
func scriptTargets(code string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range scriptPath.FindAllStringSubmatch(code, 16) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// editTargets are the files an editing command changes: the operands of
// sed -i, perl -i, rm, mv, cp, touch, patch's target.
func editTargets(prog string, args []string) []string {
	ops := nonOptions(args)
	switch prog {
	case "sed", "perl", "gsed":
		// sed -i 's/a/b/' f1 f2: the script is the first operand (after
		// -e too: nonOptions keeps the word -e takes).
		if len(ops) > 0 {
			ops = ops[1:]
		}
	case "mv", "cp", "ln", "install":
		if len(ops) > 0 {
			ops = ops[len(ops)-1:]
		}
	case "patch", "git", "apply_patch", "applypatch", "ed", "ex", "awk", "gawk", "dd", "unzip", "tar", "cargo":
		return nil
	}
	return ops
}

// progKind reads a program and its arguments.
func progKind(prog, word string, args []string, c *shellCmd) (StepKind, string) {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch prog {
	case "pytest", "py.test":
		return StepTest, "pytest"
	case "tox", "nox":
		return StepTest, prog
	case "runtests.py", "runtests":
		return StepTest, "runtests"
	case "python", "python2", "python3", "py", "pypy", "pypy3", "coverage", "ipython":
		return pythonKind(prog, args, c)
	case "go":
		switch sub {
		case "test":
			return StepTest, "go test"
		case "build", "vet":
			return StepBuild, "go " + sub
		case "run":
			return StepRun, "go run"
		case "get", "install", "mod":
			return StepInstall, "go " + sub
		}
		return StepOther, ""
	case "cargo":
		switch sub {
		case "test", "nextest", "llvm-cov", "tarpaulin", "miri":
			return StepTest, "cargo test"
		case "build", "check", "clippy", "fmt", "b", "c":
			return StepBuild, "cargo " + sub
		case "run", "r":
			return StepRun, "cargo run"
		case "install", "add", "fetch", "update":
			return StepInstall, "cargo " + sub
		case "init", "new":
			return StepEdit, "cargo " + sub
		}
		return StepOther, ""
	case "npm", "yarn", "pnpm", "bun":
		return jsPackageKind(prog, args)
	case "jest", "vitest", "mocha", "ava", "jasmine", "karma", "tap", "playwright", "cypress", "c8", "nyc":
		return StepTest, prog
	case "node", "deno", "ts-node", "tsx":
		if prog == "deno" && sub == "test" || prog == "node" && hasArg(args, "--test") {
			return StepTest, prog + " test"
		}
		if len(args) == 0 && !c.hasHeredoc {
			return StepOther, ""
		}
		return StepRun, prog
	case "tsc", "eslint", "prettier", "flake8", "ruff", "mypy", "pyright", "pylint", "black", "isort", "golangci-lint", "staticcheck", "shellcheck", "rubocop":
		return StepBuild, prog
	case "mvn", "mvnw":
		return mavenKind(args)
	case "gradle", "gradlew":
		return gradleKind(args)
	case "sbt", "sbtn", "mill":
		for _, a := range args {
			w := strings.TrimLeft(a, "~;+ ")
			if strings.HasPrefix(w, "test") || strings.Contains(a, "/test") || strings.Contains(a, "Test/") || strings.Contains(a, ";test") {
				return StepTest, "sbt"
			}
		}
		for _, a := range args {
			if strings.HasPrefix(a, "run") {
				return StepRun, "sbt"
			}
		}
		return StepBuild, "sbt"
	case "scala-cli", "scala":
		if sub == "test" {
			return StepTest, "scala-cli"
		}
		if sub == "compile" {
			return StepBuild, prog
		}
		return StepRun, prog
	case "ctest":
		return StepTest, "ctest"
	case "rspec", "minitest", "cucumber":
		return StepTest, "rspec"
	case "rake":
		if sub == "" || strings.HasPrefix(sub, "test") || strings.HasPrefix(sub, "spec") {
			return StepTest, "rake"
		}
		return StepRun, "rake"
	case "phpunit", "pest", "paratest":
		return StepTest, "phpunit"
	case "php":
		if sub == "artisan" && len(args) > 1 && args[1] == "test" {
			return StepTest, "phpunit"
		}
		return StepRun, "php"
	case "composer":
		if sub == "test" {
			return StepTest, "phpunit"
		}
		return StepInstall, "composer"
	case "dotnet":
		switch sub {
		case "test":
			return StepTest, "dotnet test"
		case "build":
			return StepBuild, "dotnet build"
		case "run":
			return StepRun, "dotnet run"
		}
		return StepOther, ""
	case "mix", "swift", "zig", "stack", "cabal", "dune", "lein", "bazel", "bazelisk", "buck2", "pants":
		for _, a := range args {
			if a == "test" || strings.HasPrefix(a, "test") {
				return StepTest, prog + " test"
			}
		}
		if sub == "run" {
			return StepRun, prog
		}
		return StepBuild, prog
	case "make", "gmake", "just", "task", "ninja":
		if hasArg(args, "-n") || hasArg(args, "--dry-run") || hasArg(args, "--just-print") {
			return StepOther, "" // prints the recipe, runs nothing
		}
		for _, a := range args {
			if isTestTarget(a) {
				return StepTest, prog + " " + a
			}
			switch a {
			case "lint", "format", "fmt", "typecheck", "clippy", "check-format", "vet", "build", "compile":
				return StepBuild, prog + " " + a
			}
		}
		if prog == "just" || prog == "task" {
			return StepRun, prog
		}
		return StepBuild, prog
	case "bats", "shunit2", "prove", "busted", "julia-test":
		return StepTest, prog
	case "javac", "scalac", "kotlinc", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "cmake", "configure", "meson", "autoreconf", "ghc", "nim":
		return StepBuild, prog
	case "java", "kotlin", "ruby", "perl", "Rscript", "julia", "lua", "bash", "sh", "zsh", "dash", "elixir", "psql", "sqlite3", "duckdb", "mysql":
		if prog == "perl" && hasInPlace(args) {
			return StepEdit, ""
		}
		if prog == "ruby" && len(args) > 0 && isTestFileName(args[len(args)-1]) {
			return StepTest, "ruby"
		}
		if prog == "bash" || prog == "sh" || prog == "zsh" || prog == "dash" {
			for _, a := range args {
				if !strings.HasPrefix(a, "-") {
					if isTestScript(a) {
						return StepTest, "script"
					}
					return StepRun, prog
				}
			}
			if c.hasHeredoc {
				return StepRun, prog
			}
			return StepOther, ""
		}
		if len(args) == 0 && !c.hasHeredoc {
			return StepOther, ""
		}
		return StepRun, prog
	case "apt-cache", "apt-file", "dpkg-query":
		return StepSearch, ""
	case "pip", "pip3", "pipx", "apt", "apt-get", "apk", "yum", "dnf", "brew", "gem", "bundle", "conda", "mamba", "micromamba", "easy_install", "poetry", "uv", "pdm", "npm-install", "cpanm", "port", "choco", "rustup", "sdk", "nvm", "pyenv", "asdf":
		switch sub {
		case "list", "show", "freeze", "search", "info", "--version", "-V", "check", "config", "env", "--help", "help":
			return StepOther, ""
		case "run":
			return StepRun, prog
		case "build":
			return StepBuild, prog
		case "test":
			return StepTest, prog
		}
		return StepInstall, prog
	case "git":
		return gitKind(args)
	case "patch", "apply_patch", "applypatch", "ed", "truncate", "rm", "mv", "cp", "touch", "ln", "rmdir", "unlink", "install":
		return StepEdit, ""
	case "sed", "gsed":
		if hasInPlace(args) {
			return StepEdit, ""
		}
		return StepRead, ""
	case "awk", "gawk":
		if hasArg(args, "inplace") {
			return StepEdit, ""
		}
		return StepRead, ""
	case "cat", "head", "tail", "less", "more", "nl", "bat", "wc", "file", "stat", "xxd", "hexdump", "od", "strings", "diff", "cmp", "sort", "uniq", "cut", "column", "jq", "yq", "readlink", "realpath", "md5sum", "sha256sum", "view", "open", "goto", "scroll_down", "scroll_up", "tac", "fold", "fmt", "expand", "colordiff", "zcat", "bzcat", "xzcat", "basename", "dirname":
		return StepRead, ""
	case "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "ls", "tree", "locate", "du", "search_dir", "search_file", "find_file", "glob", "exa", "eza", "lsd", "ll", "la":
		if prog == "find" && (hasArg(args, "-delete") || execEdits(args)) {
			return StepEdit, ""
		}
		return StepSearch, ""
	case "edit", "create", "insert", "append", "str_replace", "write":
		return StepEdit, ""
	case "submit":
		return StepSubmit, ""
	case "echo", "printf":
		for _, a := range args {
			if strings.Contains(a, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") || strings.Contains(a, "MINI_SWE_AGENT_FINAL_OUTPUT") {
				return StepSubmit, ""
			}
		}
		return StepOther, ""
	}
	if strings.HasPrefix(word, "./") || strings.HasPrefix(word, "/") || strings.Contains(word, "/") {
		// A program or script of the project's or the agent's.
		base := strings.TrimSuffix(prog, path.Ext(prog))
		switch {
		case prog == "runtests.py" || base == "runtests" || prog == "manage.py" && sub == "test":
			return StepTest, "runtests"
		case prog == "gradlew" || prog == "mvnw":
			return progKind(prog, word, args, c)
		case isTestScript(prog):
			return StepTest, "script"
		case prog == "configure":
			return StepBuild, prog
		}
		return StepRun, prog
	}
	return StepOther, ""
}

func hasArg(args []string, a string) bool {
	for _, x := range args {
		if x == a {
			return true
		}
	}
	return false
}

func hasInPlace(args []string) bool {
	for _, a := range args {
		if a == "--in-place" || strings.HasPrefix(a, "--in-place=") {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'i') && !strings.ContainsAny(a[1:], " ") {
			// -i, -i.bak, -ni, -pi: in place. (-e's script comes as its own word.)
			return true
		}
	}
	return false
}

// execEdits: find … -exec sed -i / rm ….
func execEdits(args []string) bool {
	for i, a := range args {
		if (a == "-exec" || a == "-execdir") && i+1 < len(args) {
			switch path.Base(args[i+1]) {
			case "rm", "mv", "cp":
				return true
			case "sed", "perl":
				return hasInPlace(args[i+2:])
			}
		}
	}
	return false
}

func isTestTarget(a string) bool {
	switch {
	case a == "test", a == "tests", a == "check", a == "unittest", a == "unit", a == "spec", a == "pytest", a == "ci", a == "coverage", a == "cov":
		return true
	case strings.HasPrefix(a, "test-") || strings.HasPrefix(a, "test_") || strings.HasPrefix(a, "tests-") || strings.HasPrefix(a, "check-") || strings.HasSuffix(a, "-test") || strings.HasSuffix(a, "-tests") || strings.HasPrefix(a, "coverage"):
		return true
	}
	return false
}

// isTestScript: run_tests.sh, test.sh, runtests.py, tests/run.sh.
func isTestScript(p string) bool {
	b := strings.ToLower(path.Base(p))
	b = strings.TrimSuffix(b, path.Ext(b))
	if b == "test" || b == "tests" || b == "check" || b == "ci" {
		// ./test alone is as often the agent's compiled program; a script
		// named so (test.sh, tests.py) is the project's tests.
		return path.Ext(p) != ""
	}
	return b == "runtests" || b == "run_tests" || b == "run-tests" || b == "run_test" || b == "test_all" ||
		strings.HasPrefix(b, "run_tests") || strings.HasPrefix(b, "run-tests")
}

// isTestFileName: a file of tests by the usual conventions.
func isTestFileName(p string) bool {
	b := path.Base(p)
	return strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py") || strings.HasSuffix(b, "_test.rb") || strings.HasSuffix(b, "_spec.rb") || strings.HasSuffix(b, "tests.py")
}

func pythonKind(prog string, args []string, c *shellCmd) (StepKind, string) {
	if prog == "coverage" {
		if len(args) > 0 && args[0] == "run" {
			args = args[1:]
		} else {
			return StepOther, ""
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			mod := args[i+1]
			rest := args[i+2:]
			switch mod {
			case "pytest", "py.test", "unittest", "nose", "nose2", "tox", "nox", "trial", "doctest", "xdist", "green", "ward":
				if mod == "unittest" {
					return StepTest, "unittest"
				}
				if mod == "doctest" {
					return StepTest, "doctest"
				}
				return StepTest, "pytest"
			case "pip", "ensurepip", "pipx", "uv", "poetry":
				if len(rest) > 0 && (rest[0] == "list" || rest[0] == "show" || rest[0] == "freeze") {
					return StepOther, ""
				}
				return StepInstall, "pip"
			case "py_compile", "compileall", "mypy", "flake8", "ruff", "pylint", "black", "isort", "pyflakes", "pycodestyle", "pyright", "build":
				return StepBuild, mod
			case "django":
				if len(rest) > 0 && rest[0] == "test" {
					return StepTest, "runtests"
				}
				return StepRun, "python"
			case "json.tool", "this", "site", "sysconfig", "platform":
				return StepOther, ""
			}
			return StepRun, "python"
		case a == "-c":
			return StepRun, "python"
		case a == "-":
			return StepRun, "python"
		case a == "-W" || a == "-X" || a == "-Q":
			i++ // the option's value
		case strings.HasPrefix(a, "-"):
		default:
			// The script and its arguments.
			b := path.Base(a)
			rest := args[i+1:]
			switch {
			case b == "runtests.py" || b == "runtests":
				return StepTest, "runtests"
			case b == "manage.py" && len(rest) > 0 && rest[0] == "test":
				return StepTest, "runtests"
			case b == "setup.py" && len(rest) > 0:
				switch rest[0] {
				case "test", "pytest":
					return StepTest, "pytest"
				case "install", "develop":
					return StepInstall, "setup.py"
				}
				return StepBuild, "setup.py"
			case isTestFileName(a) || isTestScript(a) || strings.Contains("/"+a, "/tests/") && strings.HasPrefix(b, "test"):
				return StepTest, "python"
			}
			return StepRun, "python"
		}
	}
	if c.hasHeredoc {
		return StepRun, "python"
	}
	return StepOther, "" // an interactive interpreter or --version
}

func jsPackageKind(prog string, args []string) (StepKind, string) {
	if len(args) == 0 {
		return StepInstall, prog // yarn alone installs
	}
	sub := args[0]
	switch sub {
	case "test", "t", "tst", "test:unit", "test:ci":
		return StepTest, prog + " test"
	case "install", "i", "ci", "add", "remove", "uninstall", "update", "upgrade", "link", "rebuild", "dedupe":
		return StepInstall, prog
	case "run", "run-script":
		if len(args) > 1 {
			s := args[1]
			switch {
			case strings.HasPrefix(s, "test") || strings.HasSuffix(s, "test") || s == "check" || strings.HasPrefix(s, "spec") || strings.HasPrefix(s, "coverage"):
				return StepTest, prog + " test"
			case strings.HasPrefix(s, "build") || s == "compile" || s == "lint" || s == "typecheck" || s == "tsc":
				return StepBuild, prog
			}
		}
		return StepRun, prog
	case "exec", "x", "dlx":
		if len(args) > 1 {
			k, r := progKind(path.Base(args[1]), args[1], args[2:], &shellCmd{})
			if k != StepOther {
				return k, r
			}
		}
		return StepRun, prog
	case "build":
		return StepBuild, prog
	case "list", "ls", "view", "info", "outdated", "why", "config", "--version", "-v":
		return StepOther, ""
	}
	if prog == "bun" || prog == "yarn" || prog == "pnpm" {
		// yarn jest, pnpm vitest, bun script.ts
		k, r := progKind(path.Base(sub), sub, args[1:], &shellCmd{})
		if k != StepOther {
			return k, r
		}
		return StepRun, prog
	}
	return StepOther, ""
}

func mavenKind(args []string) (StepKind, string) {
	skip, test := false, false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "-DskipTests") || strings.HasPrefix(a, "-Dmaven.test.skip"):
			skip = true
		case a == "test" || a == "verify" || a == "install" || a == "package" || a == "integration-test" || a == "surefire:test" || strings.HasPrefix(a, "-Dtest="):
			test = true
		case strings.HasPrefix(a, "dependency:") && a != "dependency:tree":
			return StepInstall, "mvn"
		}
	}
	if test && !skip {
		return StepTest, "mvn"
	}
	return StepBuild, "mvn" // compile, package -DskipTests, clean …
}

func gradleKind(args []string) (StepKind, string) {
	skip := false
	for i, a := range args {
		if a == "-x" && i+1 < len(args) && args[i+1] == "test" {
			skip = true
		}
	}
	for _, a := range args {
		t := a[strings.LastIndexByte(a, ':')+1:]
		if !skip && (t == "test" || t == "check" || t == "build" || strings.HasPrefix(t, "test") || t == "connectedCheck") {
			return StepTest, "gradle"
		}
		if t == "run" || t == "bootRun" {
			return StepRun, "gradle"
		}
	}
	return StepBuild, "gradle"
}

func gitKind(args []string) (StepKind, string) {
	// Skip git's own options: git -C dir --no-pager diff.
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) {
		return StepVCS, "git"
	}
	switch args[i] {
	case "apply", "am":
		if hasArg(args[i+1:], "--check") || hasArg(args[i+1:], "--stat") {
			return StepVCS, "git"
		}
		return StepEdit, "git"
	case "restore", "revert", "cherry-pick", "mv", "rm":
		return StepEdit, "git"
	case "checkout":
		if hasArg(args[i+1:], "--") || len(args[i+1:]) > 0 && strings.ContainsAny(args[len(args)-1], "./") {
			return StepEdit, "git"
		}
		return StepVCS, "git"
	case "stash":
		if len(args) > i+1 && (args[i+1] == "pop" || args[i+1] == "apply") {
			return StepEdit, "git"
		}
		return StepVCS, "git"
	case "reset":
		if hasArg(args[i+1:], "--hard") {
			return StepEdit, "git"
		}
		return StepVCS, "git"
	case "grep", "ls-files":
		return StepSearch, "git"
	case "clone", "fetch", "pull", "submodule":
		return StepInstall, "git"
	}
	return StepVCS, "git"
}

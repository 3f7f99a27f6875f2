package ingest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/triage-dev/triage/internal/triage"
)

// An agent's console captured as text (Harbor's agent/<agent>.txt, the
// tee of the agent's stdout; Terminal-Bench's sessions/agent.log or a pane
// dump) is read as steps when it is one of the consoles whose printing is
// known:
//
//   - mini-swe-agent's interactive agent (agents/interactive.py,
//     add_messages) prints a rule line of "─", then every message under a
//     header: "mini-swe-agent (step N, $C.CC):" for the model's reply (its
//     ```bash or ```mswea_bash_command block is the action) and the role,
//     capitalised, for the others ("System:", "User:", "Tool:"); an
//     observation is its action_observation_template,
//     "<returncode>N</returncode>\n<output>…</output>" (config/mini.yaml).
//   - OpenHands' headless main (openhands.core.main, which Harbor tees to
//     agent/openhands.txt) logs each event through its ColoredFormatter
//     (core/logger.py) as "HH:MM:SS - ACTION" or "HH:MM:SS - OBSERVATION"
//     and the event's str() on the next lines, after the controller's
//     "[Agent Controller <id>] " prefix: "**CmdRunAction (source=…)**",
//     "THOUGHT: …", "COMMAND:" and the command (events/action/commands.py);
//     "**CmdOutputObservation (source=…, exit code=N, metadata={…})**",
//     then the output between "--BEGIN AGENT OBSERVATION--" and
//     "--END AGENT OBSERVATION--" (events/observation/commands.py).
//
// The formats were read from those projects' printing code; no real
// capture of either was at hand to check them on (docs/REAL-LOGS.md).

// Bounds of a console read: a 2 GB capture is streamed, a line is cut at
// maxConsoleLine bytes, a block (one message) keeps its first
// maxConsoleBlock bytes, and at most maxConsoleCalls steps are kept.
const (
	maxConsoleLine  = 64 << 10
	maxConsoleBlock = 16 << 10
	maxConsoleCalls = 5000
	// maxConsoleNotes is the tail of the lines no block claimed (the
	// harness's own log lines, a traceback at the end) kept as text.
	maxConsoleNotes = 8 << 10
)

var (
	miniConsoleHead = regexp.MustCompile(`^mini-swe-agent \(step (\d+), \$([0-9.]+)\):\s*$`)
	miniConsoleRole = regexp.MustCompile(`^(System|User|Tool|Exit|Assistant):\s*$`)
	ohConsoleHead   = regexp.MustCompile(`^\d\d:\d\d:\d\d - (?:[A-Z]+_)?(ACTION|OBSERVATION)\s*$`)
	ohConsoleLog    = regexp.MustCompile(`^\d\d:\d\d:\d\d - [\w.]+:[A-Z]+: `)
	ohController    = regexp.MustCompile(`^\[Agent Controller [^\]]*\] `)
	// An event's str(): "**CmdRunAction (…)**", or for the events without
	// a __str__ their dataclass repr, "AgentFinishAction(final_thought=…)".
	ohEventClass   = regexp.MustCompile(`^(?:\*\*(\w+)|(\w+(?:Action|Observation))\()`)
	ohFinalThought = regexp.MustCompile(`final_thought=(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")`)
	ohExitCode     = regexp.MustCompile(`exit code=(-?\d+)`)
	ohAgentState   = regexp.MustCompile(`AgentState\.([A-Z_]+)|agent_state='(\w+)'`)
)

// consoleKind is the console a capture was found to be.
type consoleKind uint8

const (
	consoleUnknown consoleKind = iota
	consoleMini
	consoleOpenHands
)

// consoleReader turns a console's lines into a trace's messages and steps.
type consoleReader struct {
	t    *triage.Trace
	kind consoleKind
	// The block being read: its header and its lines.
	head    string // "assistant", "user", "tool", "system", "ACTION", "OBSERVATION"
	block   []byte
	clipped bool
	// pending is the step that waits for its observation, or -1.
	pending int
	sawTask bool
	// The last plain log line, for OpenHands' DEBUG layout, which puts
	// the msg type alone on the line after it.
	prevLog    bool
	agentState string
	finished   bool
	notes      []byte
	// dropped counts the steps past maxConsoleCalls.
	dropped int
}

// consoleTrace reads the capture at p as the console of a known agent;
// nil when it is none of them or holds no step, so the caller keeps it as
// text.
func consoleTrace(p string, src Source) *triage.Trace {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	t := newHarnessTrace(nameTrial, src)
	cr := &consoleReader{t: t, pending: -1}
	if err := cr.read(f); err != nil && len(t.ToolCalls) == 0 {
		return nil
	}
	cr.flush()
	if len(t.ToolCalls) == 0 {
		return nil
	}
	switch cr.kind {
	case consoleMini:
		t.Agent = "mini-swe-agent"
	case consoleOpenHands:
		t.Agent = "openhands"
		switch {
		case cr.agentState != "":
			t.StopReason = cr.agentState
		case cr.finished:
			t.StopReason = "finish"
		}
	}
	if cr.dropped > 0 {
		addMessage(t, "harness", "[the console's steps past the first "+strconv.Itoa(maxConsoleCalls)+" are left out: "+strconv.Itoa(cr.dropped)+" more]")
	}
	if n := bytes.TrimSpace(cr.notes); len(n) > 0 {
		addMessage(t, "terminal", string(n))
	}
	return t
}

// read streams r through the escape stripper and hands on its lines.
func (cr *consoleReader) read(r io.Reader) error {
	st := ansiStripper{}
	buf := make([]byte, 64<<10)
	var line []byte
	emit := func(b []byte) {
		for {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				if room := maxConsoleLine - len(line); room > 0 {
					line = append(line, b[:min(len(b), room)]...)
				}
				return
			}
			if room := maxConsoleLine - len(line); room > 0 {
				line = append(line, b[:min(i, room)]...)
			}
			cr.line(string(line))
			line = line[:0]
			b = b[i+1:]
		}
	}
	for {
		n, err := r.Read(buf)
		st.out = st.out[:0]
		st.write(buf[:n])
		emit(st.out)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if len(line) > 0 {
		cr.line(string(line))
	}
	return nil
}

// line takes one line of the console.
func (cr *consoleReader) line(l string) {
	trim := strings.TrimRight(l, " \t")
	if cr.kind != consoleOpenHands {
		if m := miniConsoleHead.FindStringSubmatch(trim); m != nil {
			cr.start(consoleMini, "assistant")
			return
		}
		if m := miniConsoleRole.FindStringSubmatch(trim); m != nil {
			cr.start(cr.kind, strings.ToLower(m[1]))
			return
		}
		if isRuleLine(trim) {
			cr.flush()
			return
		}
	}
	if cr.kind != consoleMini {
		if m := ohConsoleHead.FindStringSubmatch(trim); m != nil {
			cr.prevLog = false
			cr.start(consoleOpenHands, m[1])
			return
		}
		if cr.prevLog && (trim == "ACTION" || trim == "OBSERVATION") {
			cr.prevLog = false
			cr.start(consoleOpenHands, trim)
			return
		}
		if ohConsoleLog.MatchString(trim) {
			// A plain log record ends the event before it.
			cr.flush()
			cr.prevLog = true
			cr.note(l)
			return
		}
		cr.prevLog = false
	}
	if cr.head == "" {
		cr.note(l)
		return
	}
	if len(cr.block)+len(l)+1 > maxConsoleBlock {
		cr.clipped = true
		return
	}
	cr.block = append(cr.block, l...)
	cr.block = append(cr.block, '\n')
}

// isRuleLine says the line is rich's Rule: "─" and nothing else.
func isRuleLine(l string) bool {
	if len(l) < 3*8 {
		return false
	}
	return strings.Trim(l, "─") == ""
}

// note keeps the tail of the lines no block claimed.
func (cr *consoleReader) note(l string) {
	if strings.TrimSpace(l) == "" && len(cr.notes) == 0 {
		return
	}
	cr.notes = append(cr.notes, l...)
	cr.notes = append(cr.notes, '\n')
	if len(cr.notes) > 2*maxConsoleNotes {
		cut := len(cr.notes) - maxConsoleNotes
		if nl := bytes.IndexByte(cr.notes[cut:], '\n'); nl >= 0 {
			cut += nl + 1
		}
		cr.notes = cr.notes[:copy(cr.notes, cr.notes[cut:])]
	}
}

// start ends the block being read and opens one under head.
func (cr *consoleReader) start(kind consoleKind, head string) {
	cr.flush()
	if cr.kind == consoleUnknown && kind != consoleUnknown {
		cr.kind = kind
	}
	cr.head = head
}

// flush ends the block being read.
func (cr *consoleReader) flush() {
	head, text := cr.head, strings.TrimRight(string(cr.block), "\n")
	if cr.clipped {
		text += "\n[… the rest of this message is left out]"
	}
	cr.head, cr.block, cr.clipped = "", cr.block[:0], false
	text = strings.TrimLeft(text, "\n")
	switch head {
	case "":
		return
	case "assistant", "user", "tool", "system", "exit":
		cr.miniBlock(head, text)
	case "ACTION":
		cr.ohAction(text)
	case "OBSERVATION":
		cr.ohObservation(text)
	}
}

// call adds a step unless the bound is reached; its index, or -1.
func (cr *consoleReader) call(c triage.ToolCall) int {
	if len(cr.t.ToolCalls) >= maxConsoleCalls {
		cr.dropped++
		return -1
	}
	cr.t.ToolCalls = append(cr.t.ToolCalls, c)
	return len(cr.t.ToolCalls) - 1
}

// miniBlock takes one of mini-swe-agent's messages.
func (cr *consoleReader) miniBlock(role, text string) {
	t := cr.t
	switch role {
	case "system":
		return
	case "assistant":
		if strings.TrimSpace(text) != "" {
			addMessage(t, "assistant", text)
		}
		cr.pending = -1
		if blocks := bashBlock.FindAllStringSubmatch(text, -1); len(blocks) == 1 {
			cmd := blocks[0][1]
			cr.pending = cr.call(triage.ToolCall{Name: "bash", Args: commandArgs(cmd)})
			if strings.Contains(cmd, "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT") || strings.Contains(cmd, "MINI_SWE_AGENT_FINAL_OUTPUT") {
				t.StopReason = "Submitted"
			}
		}
	default:
		if !cr.sawTask && role == "user" {
			cr.sawTask = true
			addMessage(t, "user", text)
			return
		}
		if cr.pending >= 0 {
			fillMiniObservation(&t.ToolCalls[cr.pending], text)
			cr.pending = -1
			return
		}
		if strings.HasPrefix(strings.TrimSpace(text), "Limits exceeded") {
			t.StopReason = "LimitsExceeded"
		}
		addMessage(t, "user", text)
	}
}

// ohEvent splits an OpenHands event as its logger printed it: the text
// without the controller's prefix, its first line, the rest, and the
// event's class. An event whose class cannot be read is kept as a note
// (ok false).
func (cr *consoleReader) ohEvent(raw string) (text, first, body, class string, ok bool) {
	text = ohController.ReplaceAllString(raw, "")
	first, body, _ = strings.Cut(text, "\n")
	m := ohEventClass.FindStringSubmatch(first)
	if m == nil {
		cr.note(text)
		return text, first, body, "", false
	}
	return text, first, body, m[1] + m[2], true
}

// ohAction takes one OpenHands action event as its str() printed it.
func (cr *consoleReader) ohAction(text string) {
	t := cr.t
	_, first, body, class, ok := cr.ohEvent(text)
	if !ok {
		return
	}
	thought, rest := "", body
	if th, ok := strings.CutPrefix(body, "THOUGHT: "); ok {
		// The thought runs to the COMMAND:/CODE: line.
		for _, marker := range []string{"\nCOMMAND:\n", "\nCODE:\n"} {
			if i := strings.Index(th, marker); i >= 0 {
				thought, rest = th[:i], th[i+1:]
				break
			}
		}
		if thought == "" {
			thought, rest = th, ""
		}
	}
	if strings.TrimSpace(thought) != "" {
		addMessage(t, "assistant", strings.TrimSpace(thought))
	}
	switch class {
	case "CmdRunAction":
		cmd, _ := strings.CutPrefix(rest, "COMMAND:\n")
		cr.pending = cr.call(triage.ToolCall{Name: "execute_bash", Args: commandArgs(cmd)})
	case "IPythonRunCellAction":
		code, _ := strings.CutPrefix(rest, "CODE:\n")
		raw, _ := json.Marshal(map[string]string{"code": code})
		cr.pending = cr.call(triage.ToolCall{Name: "execute_ipython_cell", Args: raw})
	case "MessageAction":
		content := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(body), "CONTENT:"))
		role := "assistant"
		if strings.Contains(first, "source=EventSource.USER") || strings.Contains(first, "source=user") {
			role = "user"
		}
		if content != "" {
			addMessage(t, role, content)
		}
	case "AgentFinishAction":
		cr.finished = true
		a := strings.TrimSpace(rest)
		if f := ohFinalThought.FindStringSubmatch(first); f != nil {
			a = strings.TrimSpace(f[1] + f[2])
		}
		if a != "" {
			t.Answer = &a
		}
		cr.pending = cr.call(triage.ToolCall{Name: "finish"})
	case "SystemMessageAction", "RecallAction", "ChangeAgentStateAction", "NullAction":
	default:
		// FileEditAction, FileReadAction, AgentThinkAction and the rest:
		// a step named by its class, its printed fields as the arguments.
		raw, _ := json.Marshal(map[string]string{"text": strings.TrimSpace(rest)})
		cr.pending = cr.call(triage.ToolCall{Name: class, Args: raw})
	}
}

// ohObservation takes one OpenHands observation event: the output of the
// step that waits for one.
func (cr *consoleReader) ohObservation(text string) {
	t := cr.t
	text, _, _, class, ok := cr.ohEvent(text)
	if !ok {
		return
	}
	switch class {
	case "AgentStateChangedObservation":
		if s := ohAgentState.FindStringSubmatch(text); s != nil {
			cr.agentState = strings.ToLower(s[1] + s[2])
		}
		return
	case "NullObservation", "RecallObservation":
		return
	}
	if cr.pending < 0 {
		return
	}
	c := &t.ToolCalls[cr.pending]
	cr.pending = -1
	head, out := text, ""
	if i := strings.Index(text, "--BEGIN AGENT OBSERVATION--"); i >= 0 {
		head, out = text[:i], strings.TrimPrefix(text[i+len("--BEGIN AGENT OBSERVATION--"):], "\n")
		if j := strings.LastIndex(out, "--END AGENT OBSERVATION--"); j >= 0 {
			out = out[:j]
		}
	} else if k := strings.Index(text, "**\n"); k >= 0 {
		head, out = text[:k], text[k+3:]
	}
	c.Output = strings.TrimRight(out, "\n")
	if e := ohExitCode.FindStringSubmatch(head); e != nil {
		if n, err := strconv.Atoi(e[1]); err == nil && n != -1 {
			c.ExitCode = ptr(n)
			if n != 0 {
				c.Error = "exit status " + e[1]
			}
		}
	}
	if class == "ErrorObservation" {
		c.Error = nameOr(strings.TrimSpace(firstLine(c.Output)), "error")
	}
}

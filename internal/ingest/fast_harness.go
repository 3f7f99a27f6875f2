package ingest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"sync"
)

// fastMaxBytes bounds a whole-file document read into memory for the fast
// path; larger ones stream through encoding/json as before, so memory
// stays bounded by the largest step, not the file.
const fastMaxBytes = 16 << 20

// wholeFile reads a small source into memory for a fast decode. It returns
// the bytes (ok false when the source is too big or the read failed) and
// the source to hand the slow path: it yields the same bytes, then
// whatever the read met (the rest of a big stream, or the read's error),
// so the slow path reads exactly what it would have read from the file.
func wholeFile(src Source) (data []byte, ok bool, slow Source) {
	slow = src
	if src.Opts.slowOnly {
		return nil, false, src
	}
	size := int64(-1)
	if src.Path != "" && !src.gzipped {
		if st, err := os.Stat(src.Path); err == nil && st.Mode().IsRegular() {
			if st.Size() > fastMaxBytes {
				return nil, false, src
			}
			size = st.Size()
		}
	}
	var buf []byte
	if size >= 0 {
		buf = takeBuf(int(size) + 1)
	} else {
		buf = make([]byte, 0, 512)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := src.R.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			slow.R = bytes.NewReader(buf)
			return buf, true, slow
		}
		if err != nil {
			slow.R = io.MultiReader(bytes.NewReader(buf), errReader{err})
			return nil, false, slow
		}
		if len(buf) > fastMaxBytes {
			slow.R = io.MultiReader(bytes.NewReader(buf), src.R)
			return nil, false, slow
		}
	}
}

// wholeBufs keeps the buffers of documents read whole, so that reading
// thousands of files does not allocate (and zero) a new one each.
var wholeBufs sync.Pool

// takeBuf returns an empty buffer of at least n bytes' room.
func takeBuf(n int) []byte {
	if b, ok := wholeBufs.Get().(*[]byte); ok {
		if cap(*b) >= n {
			return (*b)[:0]
		}
		wholeBufs.Put(b)
	}
	return make([]byte, 0, n)
}

// releaseWhole gives back a buffer wholeFile returned, once nothing views
// it: the decoders that copy what they keep (every one but aider's) call
// it when the file is done.
func releaseWhole(b []byte) {
	if cap(b) > 0 && cap(b) <= fastMaxBytes+1 {
		wholeBufs.Put(&b)
	}
}

// errReader replays a read error.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// parseWhole parses a whole-file document whose first value must be an
// object (the walks take nothing after it, as encoding/json's stream
// does not); false sends the file to the slow path.
func parseWhole(ctx context.Context, d *jdoc, data []byte) bool {
	if ctx.Err() != nil {
		return false
	}
	if _, ok := d.parse(data, 0); !ok {
		return false
	}
	return d.nodes[0].kind == jObject
}

// topKeys walks a whole-file document's top object as walkObject does,
// calling fn with each key's text and value; a key met twice sets d.bad
// (walkObject would decode it again over the first).
func (d *jdoc) topKeys(fn func(key string, v int32)) {
	seen := map[string]bool{}
	for k := d.first(0); k >= 0; {
		v := d.nodes[k].next
		key := d.text(k)
		if seen[key] {
			d.bad = true
			return
		}
		seen[key] = true
		fn(key, v)
		if d.bad {
			return
		}
		k = d.after(0, v)
	}
}

// array calls fn for each element of array v; null is an empty array, as
// walkArray takes it, and any other kind sets d.bad.
func (d *jdoc) array(v int32, fn func(el int32)) {
	switch d.nodes[v].kind {
	case jNull:
		return
	case jArray:
	default:
		d.bad = true
		return
	}
	for c := d.first(v); c >= 0 && !d.bad; c = d.after(v, c) {
		fn(c)
	}
}

// SWE-agent.

var (
	sweStepFields       = jfields{"action", "observation", "thought", "execution_time"}
	sweHistoryFields    = jfields{"role", "content", "is_demo"}
	sweInfoFields       = jfields{"exit_status", "submission", "model_stats"}
	sweModelStatsFields = jfields{"instance_cost", "tokens_sent", "tokens_received"}
)

// fastWalk fills f from the parsed trajectory as the slow walk would;
// false (d.bad) leaves the file to it.
func (f *sweFile) fastWalk(d *jdoc) bool {
	d.topKeys(func(key string, v int32) {
		switch key {
		case "environment":
			f.env = d.str(v)
		case "trajectory":
			d.array(v, func(el int32) {
				var s sweStep
				if d.object(el) {
					d.fields(el, sweStepFields, func(i int, val int32) {
						switch i {
						case 0:
							s.Action = d.str(val)
						case 1:
							s.Observation = d.raw(val)
							s.obs, s.obsSet = d.contentText(val), true
						case 2:
							s.Thought = d.str(val)
						case 3:
							s.ExecutionTime = d.f64Ptr(val)
						}
					})
				}
				f.steps = append(f.steps, s)
			})
		case "history":
			d.array(v, func(el int32) {
				if f.problem != "" {
					return
				}
				var h sweHistoryItem
				var content int32 = -1
				if d.object(el) {
					d.fields(el, sweHistoryFields, func(i int, val int32) {
						switch i {
						case 0:
							h.Role = d.str(val)
						case 1:
							content = val
						case 2:
							h.IsDemo = d.boolean(val)
						}
					})
				}
				if !d.bad && h.Role == "user" && !h.IsDemo {
					f.problem = ""
					if content >= 0 {
						f.problem = d.contentText(content)
					}
				}
			})
		case "info":
			if d.object(v) {
				d.fields(v, sweInfoFields, func(i int, val int32) {
					switch i {
					case 0:
						f.info.ExitStatus = d.strPtr(val)
					case 1:
						f.info.Submission = d.strPtr(val)
					case 2:
						if d.object(val) {
							ms := &sweModelStats{}
							d.fields(val, sweModelStatsFields, func(i int, val int32) {
								switch i {
								case 0:
									ms.InstanceCost = d.f64Ptr(val)
								case 1:
									ms.TokensSent = d.i64Ptr(val)
								case 2:
									ms.TokensReceived = d.i64Ptr(val)
								}
							})
							f.info.ModelStats = ms
						}
					}
				})
			}
		case "replay_config":
			f.replay = decodeReplay(d.raw(v))
		}
	})
	return !d.bad
}

// mini-swe-agent.

var (
	miniMessageFields  = jfields{"role", "content", "extra", "tool_calls", "tool_call_id", "object", "type", "call_id", "output", "usage"}
	miniExtraFields    = jfields{"response", "actions", "raw_output", "returncode", "exception_info"}
	miniResponseFields = jfields{"usage"}
	miniUsageFields    = jfields{"prompt_tokens", "completion_tokens"}
	oaToolCallFields   = jfields{"id", "function"}
	oaFunctionFields   = jfields{"name", "arguments"}
	miniInfoFields     = jfields{"exit_status", "submission", "model_stats", "config"}
	miniStatsFields    = jfields{"instance_cost"}
	miniConfigFields   = jfields{"model"}
	miniModelFields    = jfields{"model_name"}
)

// miniFast is what the fast walk reads of a mini-swe-agent trajectory.
type miniFast struct {
	info    miniInfo
	iid, tf string
}

// fastWalk reads the parsed trajectory into b and m as the slow walk
// would; false (d.bad) leaves the file to it, with b to be thrown away.
func (m *miniFast) fastWalk(d *jdoc, b *miniBuilder) bool {
	d.topKeys(func(key string, v int32) {
		switch key {
		case "info":
			m.info = d.miniInfo(v)
		case "instance_id":
			m.iid = d.str(v)
		case "trajectory_format":
			m.tf = d.str(v)
		case "messages":
			d.array(v, func(el int32) {
				msg, text := d.miniMessage(el)
				if !d.bad {
					b.add(msg, text)
				}
			})
		}
	})
	return !d.bad
}

func (d *jdoc) miniInfo(v int32) miniInfo {
	var in miniInfo
	if !d.object(v) {
		return in
	}
	d.fields(v, miniInfoFields, func(i int, val int32) {
		switch i {
		case 0:
			in.ExitStatus = d.str(val)
		case 1:
			in.Submission = d.strPtr(val)
		case 2:
			if d.object(val) {
				in.ModelStats = &struct {
					InstanceCost *float64 `json:"instance_cost"`
				}{}
				d.fields(val, miniStatsFields, func(_ int, val int32) {
					in.ModelStats.InstanceCost = d.f64Ptr(val)
				})
			}
		case 3:
			if d.object(val) {
				d.fields(val, miniConfigFields, func(_ int, val int32) {
					if d.object(val) {
						d.fields(val, miniModelFields, func(_ int, val int32) {
							in.Config.Model.ModelName = d.str(val)
						})
					}
				})
			}
		}
	})
	return in
}

// miniMessage reads one message and its content's text.
func (d *jdoc) miniMessage(v int32) (m miniMessage, text string) {
	if !d.object(v) {
		return m, ""
	}
	d.fields(v, miniMessageFields, func(i int, val int32) {
		switch i {
		case 0:
			m.Role = d.str(val)
		case 1:
			m.Content = d.raw(val)
			text = d.contentText(val)
		case 2:
			m.Extra = d.miniExtra(val)
		case 3:
			if d.nodes[val].kind == jArray {
				m.ToolCalls = []oaToolCall{}
			}
			d.array(val, func(el int32) {
				var tc oaToolCall
				if d.object(el) {
					d.fields(el, oaToolCallFields, func(i int, val int32) {
						switch i {
						case 0:
							tc.ID = d.str(val)
						case 1:
							if d.object(val) {
								d.fields(val, oaFunctionFields, func(i int, val int32) {
									switch i {
									case 0:
										tc.Function.Name = d.str(val)
									case 1:
										tc.Function.Arguments = d.raw(val)
									}
								})
							}
						}
					})
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			})
		case 4:
			m.ToolCallID = d.str(val)
		case 5:
			m.Object = d.raw(val)
		case 6:
			m.Type = d.raw(val)
		case 7:
			m.CallID = d.raw(val)
		case 8:
			m.Output = d.raw(val)
		case 9:
			m.Usage = d.raw(val)
		}
	})
	return m, text
}

// miniExtra reads a message's extra: the response's usage (the rest, the
// API's whole response, was checked by the parse and is never looked at
// again) and 2.x's actions and command result.
func (d *jdoc) miniExtra(v int32) *miniExtra {
	if !d.object(v) {
		return nil
	}
	e := &miniExtra{}
	d.fields(v, miniExtraFields, func(f int, val int32) {
		if f > 0 {
			d.miniExtraResult(e, f, val)
			return
		}
		if !d.object(val) {
			return
		}
		e.Response = &miniResponse{}
		d.fields(val, miniResponseFields, func(_ int, val int32) {
			if !d.object(val) {
				return
			}
			u := &miniUsage{}
			d.fields(val, miniUsageFields, func(i int, val int32) {
				if i == 0 {
					u.PromptTokens = d.i64Ptr(val)
				} else {
					u.CompletionTokens = d.i64Ptr(val)
				}
			})
			e.Response.Usage = u
		})
	})
	return e
}

// Codex.

var (
	codexLineFields    = jfields{"timestamp", "type", "payload"}
	codexPayloadFields = jfields{
		"type", "id", "model", "cwd", "role", "content", "name", "arguments", "input", "call_id", "output", "action",
		"info", "last_agent_message", "exit_code", "duration", "success", "stderr", "reason",
	}
	codexInfoFields  = jfields{"total_token_usage"}
	codexUsageFields = jfields{"input_tokens", "output_tokens"}
)

// codexLine reads one rollout line into l and p as the two
// json.Unmarshal calls of the slow path would; false leaves the line to
// them. The raw fields view line.
func (d *jdoc) codexLine(line []byte, l *codexLine, p *codexPayload) bool {
	if end, ok := d.parse(line, 0); !ok || end != len(line) || d.nodes[0].kind != jObject {
		return false
	}
	payload := int32(-1)
	d.fields(0, codexLineFields, func(i int, v int32) {
		switch i {
		case 0:
			l.Timestamp = d.str(v)
		case 1:
			l.Type = d.str(v)
		case 2:
			payload = v
			l.Payload = d.raw(v)
		}
	})
	if d.bad || payload < 0 || !d.object(payload) {
		// No payload is an error of the slow path's; null would decode
		// to nothing, and is too rare to read here.
		return false
	}
	d.fields(payload, codexPayloadFields, func(i int, v int32) {
		switch i {
		case 0:
			p.Type = d.str(v)
		case 1:
			p.ID = d.str(v)
		case 2:
			p.Model = d.str(v)
		case 3:
			p.Cwd = d.str(v)
		case 4:
			p.Role = d.str(v)
		case 5:
			p.Content = d.raw(v)
		case 6:
			p.Name = d.str(v)
		case 7:
			p.Arguments = d.raw(v)
		case 8:
			p.Input = d.raw(v)
		case 9:
			p.CallID = d.str(v)
		case 10:
			p.Output = d.raw(v)
		case 11:
			p.Action = d.raw(v)
		case 12:
			p.Info = d.codexInfo(v)
		case 13:
			p.LastAgentMessage = d.strPtr(v)
		case 14:
			p.ExitCode = d.intPtr(v)
		case 15:
			p.Duration = d.raw(v)
		case 16:
			p.Success = d.boolPtr(v)
		case 17:
			p.Stderr = d.str(v)
		case 18:
			p.Reason = d.str(v)
		}
	})
	return !d.bad
}

func (d *jdoc) codexInfo(v int32) *codexInfo {
	if !d.object(v) {
		return nil
	}
	in := &codexInfo{}
	d.fields(v, codexInfoFields, func(_ int, v int32) {
		if !d.object(v) {
			return
		}
		u := &codexUsage{}
		d.fields(v, codexUsageFields, func(i int, v int32) {
			if i == 0 {
				u.InputTokens = d.i64(v)
			} else {
				u.OutputTokens = d.i64(v)
			}
		})
		in.TotalTokenUsage = u
	})
	return in
}

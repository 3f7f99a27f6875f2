package ingest

// The fast path of Claude Code sessions (see jtree.go): a line is read
// from its tree, its message's content blocks included; a line the tree
// cannot read the way encoding/json would goes to json.Unmarshal.

var (
	claudeLineFields = jfields{
		"type", "sessionId", "timestamp", "isMeta", "requestId", "cwd", "message", "toolUseResult",
		"subtype", "session_id", "total_cost_usd", "result",
	}
	claudeMessageFields = jfields{"id", "role", "model", "content", "usage"}
	claudeUsageFields   = jfields{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"}
	claudeBlockFields   = jfields{"type", "text", "id", "name", "input", "tool_use_id", "content", "is_error"}
)

// claudeLine reads one session line into l as json.Unmarshal would;
// false leaves the line to it. The raw fields view line.
func (d *jdoc) claudeLine(line []byte, l *claudeLine) bool {
	if end, ok := d.parse(line, 0); !ok || end != len(line) || d.nodes[0].kind != jObject {
		return false
	}
	d.fields(0, claudeLineFields, func(i int, v int32) {
		switch i {
		case 0:
			l.Type = d.str(v)
		case 1:
			l.SessionID = d.str(v)
		case 2:
			l.Timestamp = d.str(v)
		case 3:
			l.IsMeta = d.boolean(v)
		case 4:
			l.RequestID = d.str(v)
		case 5:
			l.Cwd = d.str(v)
		case 6:
			l.Message = d.claudeMessage(v)
		case 7:
			// Its own UnmarshalJSON, called as encoding/json would (null
			// included); it never fails and copies what it keeps.
			_ = l.ToolUseResult.UnmarshalJSON(d.raw(v))
		case 8:
			l.Subtype = d.str(v)
		case 9:
			l.StreamID = d.str(v)
		case 10:
			l.TotalCostUSD = d.f64Ptr(v)
		case 11:
			l.Result = d.raw(v)
		}
	})
	return !d.bad
}

func (d *jdoc) claudeMessage(v int32) *claudeMessage {
	if !d.object(v) {
		return nil
	}
	m := &claudeMessage{fast: true}
	content := int32(-1)
	d.fields(v, claudeMessageFields, func(i int, v int32) {
		switch i {
		case 0:
			m.ID = d.str(v)
		case 1:
			m.Role = d.str(v)
		case 2:
			m.Model = d.str(v)
		case 3:
			m.Content = d.raw(v)
			content = v
		case 4:
			if d.object(v) {
				u := &claudeUsage{}
				d.fields(v, claudeUsageFields, func(i int, v int32) {
					switch i {
					case 0:
						u.InputTokens = d.i64(v)
					case 1:
						u.CacheCreationInputTokens = d.i64(v)
					case 2:
						u.CacheReadInputTokens = d.i64(v)
					case 3:
						u.OutputTokens = d.i64(v)
					}
				})
				m.Usage = u
			}
		}
	})
	// What json.Unmarshal(Content, &blocks) makes of the content: no
	// content fails (text ""), null is no blocks, an array its blocks
	// (an element it cannot decode leaves the line to the slow path), and
	// any other value fails and reads as text.
	switch {
	case content < 0:
	case d.nodes[content].kind == jNull:
		m.blocksOK = true
	case d.nodes[content].kind == jArray:
		m.blocksOK = true
		m.blocks = []claudeBlock{}
		for c := d.first(content); c >= 0 && !d.bad; c = d.after(content, c) {
			var blk claudeBlock
			if d.object(c) {
				d.claudeBlock(c, &blk)
			}
			m.blocks = append(m.blocks, blk)
		}
	default:
		m.text = d.contentText(content)
	}
	return m
}

func (d *jdoc) claudeBlock(v int32, b *claudeBlock) {
	d.fields(v, claudeBlockFields, func(i int, v int32) {
		switch i {
		case 0:
			b.Type = d.str(v)
		case 1:
			b.Text = d.str(v)
		case 2:
			b.ID = d.str(v)
		case 3:
			b.Name = d.str(v)
		case 4:
			b.Input = d.raw(v)
		case 5:
			b.ToolUseID = d.str(v)
		case 6:
			b.Content = d.raw(v)
			b.text, b.textSet = d.contentText(v), true
		case 7:
			b.IsError = d.boolean(v)
		}
	})
}

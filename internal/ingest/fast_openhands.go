package ingest

// The fast path of OpenHands' output.jsonl (see jtree.go): a line is read
// from its tree, its history's events included, and a line the tree
// cannot read the way encoding/json would goes to json.Unmarshal.

var (
	ohOutputFields = jfields{
		"instance_id", "test_result", "instruction", "metadata", "history", "metrics", "error", "report",
		"issue", "pr_review", "issue_type", "git_patch", "success",
	}
	ohTestResultFields = jfields{"git_patch", "report"}
	ohReportFields     = jfields{"resolved"}
	ohMetadataFields   = jfields{"agent_class", "llm_config"}
	ohLLMConfigFields  = jfields{"model"}
	ohEventFields      = jfields{
		"id", "timestamp", "source", "message", "action", "observation", "args", "cause", "content",
		"extras", "tool_call_metadata", "llm_metrics",
		"command", "code", "path", "url", "thought", "outputs", "exit_code",
	}
	ohExtrasFields       = jfields{"metadata", "exit_code", "agent_state"}
	ohExitMetaFields     = jfields{"exit_code"}
	ohToolCallMetaFields = jfields{"function_name", "model_response"}
	ohModelRespFields    = jfields{"id", "model", "usage"}
	ohLLMMetricsFields   = jfields{"accumulated_cost", "accumulated_token_usage"}
	ohUsageFields        = jfields{"prompt_tokens", "completion_tokens"}
)

// ohOutputLine reads one output.jsonl line into o as json.Unmarshal
// would, with its history as events (o.events); false leaves the line to
// json.Unmarshal. The raw fields view line.
func (d *jdoc) ohOutputLine(line []byte, o *ohOutput) bool {
	if end, ok := d.parse(line, 0); !ok || end != len(line) || d.nodes[0].kind != jObject {
		return false
	}
	d.fields(0, ohOutputFields, func(i int, v int32) {
		switch i {
		case 0:
			o.InstanceID = d.str(v)
		case 1:
			if d.object(v) {
				tr := &ohTestResult{}
				d.fields(v, ohTestResultFields, func(i int, v int32) {
					if i == 0 {
						tr.GitPatch = d.strPtr(v)
					} else {
						tr.Report = d.ohReport(v)
					}
				})
				o.TestResult = tr
			}
		case 2:
			o.Instruction = d.str(v)
		case 3:
			if d.object(v) {
				m := &ohMetadata{}
				d.fields(v, ohMetadataFields, func(i int, v int32) {
					if i == 0 {
						m.AgentClass = d.str(v)
					} else if d.object(v) {
						m.LLMConfig = &ohLLMConfig{}
						d.fields(v, ohLLMConfigFields, func(_ int, v int32) {
							m.LLMConfig.Model = d.str(v)
						})
					}
				})
				o.Metadata = m
			}
		case 4:
			o.eventsSet = true
			d.array(v, func(el int32) {
				switch d.nodes[el].kind {
				case jObject:
					o.events = append(o.events, d.ohEvent(el))
				case jArray:
					// An older run's [action, observation] pair.
					for c := d.first(el); c >= 0 && !d.bad; c = d.after(el, c) {
						switch d.nodes[c].kind {
						case jObject:
							o.events = append(o.events, d.ohEvent(c))
						case jNull:
							o.events = append(o.events, ohEvent{})
						default:
							d.bad = true
						}
					}
				default:
					d.bad = true
				}
			})
		case 5:
			o.Metrics = d.raw(v)
		case 6:
			o.Error = d.strPtr(v)
		case 7:
			o.Report = d.ohReport(v)
		case 8:
			o.Issue = d.raw(v)
		case 9:
			o.PRReview = d.raw(v)
		case 10:
			o.IssueType = d.str(v)
		case 11:
			o.GitPatch = d.raw(v)
		case 12:
			o.Success = d.boolPtr(v)
		}
	})
	return !d.bad
}

func (d *jdoc) ohReport(v int32) *ohReport {
	if !d.object(v) {
		return nil
	}
	r := &ohReport{}
	d.fields(v, ohReportFields, func(_ int, v int32) {
		r.Resolved = d.boolPtr(v)
	})
	return r
}

// ohEvent reads one event object.
func (d *jdoc) ohEvent(v int32) ohEvent {
	var e ohEvent
	d.fields(v, ohEventFields, func(i int, v int32) {
		switch i {
		case 0:
			e.ID = d.i64(v)
		case 1:
			e.Timestamp = d.str(v)
		case 2:
			e.Source = d.str(v)
		case 3:
			e.Message = d.str(v)
		case 4:
			e.Action = d.str(v)
		case 5:
			e.Observation = d.str(v)
		case 6:
			e.Args = d.raw(v)
		case 7:
			e.Cause = d.i64Ptr(v)
		case 8:
			e.Content = d.raw(v)
			e.text, e.textSet = d.contentText(v), true
		case 9:
			if d.object(v) {
				d.fields(v, ohExtrasFields, func(i int, v int32) {
					switch i {
					case 0:
						if d.object(v) {
							e.Extras.Metadata = &ohExitMeta{}
							d.fields(v, ohExitMetaFields, func(_ int, v int32) {
								e.Extras.Metadata.ExitCode = d.intPtr(v)
							})
						}
					case 1:
						e.Extras.ExitCode = d.intPtr(v)
					case 2:
						e.Extras.AgentState = d.str(v)
					}
				})
			}
		case 10:
			if d.object(v) {
				m := &ohToolCallMeta{}
				d.fields(v, ohToolCallMetaFields, func(i int, v int32) {
					if i == 0 {
						m.FunctionName = d.str(v)
						return
					}
					if d.object(v) {
						r := &ohModelResponse{}
						d.fields(v, ohModelRespFields, func(i int, v int32) {
							switch i {
							case 0:
								r.ID = d.str(v)
							case 1:
								r.Model = d.str(v)
							case 2:
								r.Usage = d.ohUsage(v)
							}
						})
						m.ModelResponse = r
					}
				})
				e.ToolCallMetadata = m
			}
		case 11:
			if d.object(v) {
				m := &ohLLMMetrics{}
				d.fields(v, ohLLMMetricsFields, func(i int, v int32) {
					if i == 0 {
						m.AccumulatedCost = d.f64Ptr(v)
					} else {
						m.AccumulatedTokenUsage = d.ohUsage(v)
					}
				})
				e.LLMMetrics = m
			}
		case 12:
			e.Command = d.strPtr(v)
		case 13:
			e.Code = d.strPtr(v)
		case 14:
			e.Path = d.strPtr(v)
		case 15:
			e.URL = d.strPtr(v)
		case 16:
			e.Thought = d.str(v)
		case 17:
			e.Outputs = d.raw(v)
		case 18:
			e.ExitCode = d.intPtr(v)
		}
	})
	return e
}

func (d *jdoc) ohUsage(v int32) *ohUsage {
	if !d.object(v) {
		return nil
	}
	u := &ohUsage{}
	d.fields(v, ohUsageFields, func(i int, v int32) {
		if i == 0 {
			u.PromptTokens = d.i64(v)
		} else {
			u.CompletionTokens = d.i64(v)
		}
	})
	return u
}

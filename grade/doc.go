// Package grade decides whether a run of an agent did what was expected.
// It knows nothing of how the run happened: whatever ran the agent (the
// scenario runner in package harness, or a program of its own) describes
// what it saw as an Observed, and grade checks that value against an
// Expect and against the invariants every run must keep. It imports
// engine, engine/schema and textdiff only, never harness, cassette or a
// report format: a judge's model and a command grader's record come from
// the runner, through Env.
//
//	obs := &grade.Observed{AIMessages: msgs, Final: "It is sunny in Paris."}
//	for _, r := range grade.Check(ctx, grade.Expect{Final: &grade.TextMatch{Contains: []string{"sunny"}}}, obs) {
//		if !r.Passed {
//			fmt.Println(r.Message)
//		}
//	}
//
// # Observed
//
// Observed is the whole input of every check. Its Steps are the
// supersteps in order, each with the messages it changed and the thread's
// messages after it; AIMessages is the trajectory (the AI messages in the
// order they entered the state, an edited one in its final form);
// Messages and Final are the last turn's thread at the end; Interrupts
// come with their turns; Streamed holds the messages of the "messages"
// stream mode, chunk by chunk, in the order of the tasks that made them; Invokes give each run of the graph its
// supersteps and recursion limit; Usage counts calls, steps, tokens and
// cost; Err and ErrTurn are the failed turn. It holds no timings, so it
// is the same at any parallelism, and its zero value is a run that did
// nothing. A check reads only the fields it names below; it never changes
// the value.
//
// # Results
//
// Every check yields Results: Name says what was checked, Passed whether
// it held, Score (in [0,1]) how well and Threshold the score it had to
// reach, Message says on one line what was wrong (it starts with Name
// for expectations, invariants and graders), and Diff, when there is one, is a
// (-want +got) line diff: each line is "- ", "+ " or "  " and the text;
// more than three unchanged lines between changes are cut to
// "  ... N identical lines", and a last line without a newline is marked
// " (no newline at end)". Messages and diffs are byte-stable: reports and
// CI logs show them as they are.
//
// Expectations, invariants and golden checks are pass/fail: they score 1
// or 0 against a threshold of 1, and leave Reason and Grader empty.
// Graders give partial scores, a Reason, and their kind in Grader.
//
// Check returns, in this order: a failed "error" entry when the run
// failed and Expect.Error is nil ("turns[2] failed: ..."); one entry per
// set field of Expect (CheckExpect); one per grader (Env.Grade); one per
// invariant (CheckInvariants).
// Golden files are compared apart (CheckGolden), because rendering the
// transcript is the runner's job.
//
// # Expectations
//
// Each set field of Expect is one expectation, checked in field order:
//
//   - trajectory: the tool calls of AIMessages, as openevals'
//     create_trajectory_match_evaluator compares them (see "Trajectory
//     matching and openevals" below): mode strict (same calls, same
//     order), unordered (same multiset), subset (every call made was
//     expected) or superset (every expected call was made); args exact,
//     ignore, subset or superset, per tool with ToolArgs; with
//     GroupParallel, Steps compares each AI message's calls as a set.
//     Values compare as engine.ValueEqual does (1 equals 1.0, key order
//     does not matter).
//   - final: Final equals, contains, does not contain, matches an RE2
//     regex; every set condition must hold.
//   - structured_response: validates against a JSON Schema (draft 2020-12
//     unless "$schema" says otherwise; external $ref is refused) and holds
//     Values as a subset.
//   - interrupts: as many as expected, each expected value a subset of
//     the one raised; "interrupts: []" expects none.
//   - max_model_calls, max_tool_calls, max_steps, max_tokens, max_cost:
//     Usage within the limit; an unknown cost fails max_cost.
//   - error: the run failed with the Python exception kind Type and a
//     message (or full text) containing Contains.
//   - streamed: the messages of the "messages" stream mode (Streamed),
//     as many as expected and in order, each holding every field its
//     entry sets: the node and subgraph namespace that produced it, its
//     type and ID, its text put together (a TextMatch), its number of
//     chunks, the text of each chunk (where the stream broke it) and the
//     names of the tool calls it carried.
//
// A subset here means: objects have the expected keys with matching
// values, lists have the same length and matching elements, other values
// are equal; a mismatch names its place as a path ("$.args[0].city").
//
// # Graders
//
// Expect.Graders score a run in [0,1], each passing when its score
// reaches its Threshold (default 1), with a Reason a person can read;
// eval's statistics aggregate the scores. Exactly one kind is set:
//
//   - Judge: LLM-as-judge, in the manner of openevals and agentevals
//     with prompts of our own (JudgeInstructions, JudgeInput): a rubric
//     in free text or a built-in one (correctness against a reference
//     answer, helpfulness, trajectory accuracy with or without a
//     reference trajectory), optional choices and few-shot examples, and
//     what the judge sees (final answer, transcript, tool calls). The
//     model comes from Env.Judge: the runner builds it, a provider model
//     behind the scenario's cassette, so a replay needs no network. The
//     answer must be a JSON object with a score (ParseJudgeAnswer).
//   - TrajectoryScore: partial credit by alignment — longest common
//     subsequence (2·L/(m+n)) or edit distance (1 − d/max(m,n)) over the
//     calls, those of one AI message in a canonical order so they count
//     as a set — or precision, recall and F1 over the multiset of calls
//     (a maximum matching, as the trajectory expectation uses).
//   - Order: relative order of tools' first calls ("before": [search,
//     answer]); the share of neighbouring pairs in order.
//   - Args and Answer: matchers per field of a tool's arguments, or of
//     the final text or structured response: RE2 regex, numeric tolerance
//     (approx), one_of, case- and space-insensitive text, JSON Schema
//     validity, normalized Levenshtein similarity (Similarity) with a
//     floor.
//   - Go: a Func registered in Env.Funcs (harness.Options.Graders).
//   - Command: an external program that reads Env.Record (the run as
//     the JSON report shows it) on stdin and writes {"score", "reason"} on
//     stdout (ParseScoreJSON), with a timeout.
//
// A grader that cannot grade — a judge's answer that cannot be parsed, a
// command that fails, times out or writes no score, a Go grader that
// returns an error — yields an entry with Errored set whose Message names
// the scenario (Env.Scenario) and the grader: the runner reports the
// scenario as an error, never as a score of 0. Grader.Problems lists what
// is wrong with a grader's specification, for a runner to report when it
// loads one.
//
// # Invariants
//
// CheckInvariants returns three entries whatever the expectations: every
// tool call of an AI message that a later AI message follows is answered
// by exactly one ToolMessage between the two, and no ToolMessage answers
// an unknown or earlier call ("invariant: tool calls answered"); no two
// messages share an ID ("invariant: message ids unique"); no run of the
// graph took more supersteps than its recursion limit ("invariant:
// remaining steps"). They are read from every step's messages; a
// violation that stays in the history is reported once, where it first
// shows.
//
// # Golden files
//
// CheckGolden compares a rendered transcript with its file byte for byte
// and says whether the file was the same, changed, missing or written;
// with update a missing or different file is (re)written and the check
// passes.
//
// # Not here yet
//
// The JSON Schema loader in structured.go, which refuses external $ref,
// is a copy of engine/schema's; it is to be replaced by that one.
// # Trajectory matching and openevals
//
// The trajectory expectation follows openevals (langchain-ai/openevals at
// bdb122e440070b3afe86717b4be7da23564f198e, python/openevals/trajectory/),
// which absorbed agentevals' matchers. An argument mode is a matcher
// called as matcher(first, second) (utils.py, _subset_match and
// _superset_match): subset means first's keys and values are all in
// second, superset the reverse. Which call is first depends on the mode,
// exactly as in openevals:
//
//   - strict and superset: matcher(made call's args, expected call's
//     args) (strict.py _scorer; superset.py _scorer calls
//     _is_trajectory_superset(outputs, reference_outputs)). So args
//     subset accepts a made call that leaves expected arguments out,
//     args superset one that adds arguments.
//   - subset: matcher(expected call's args, made call's args)
//     (subset.py _scorer swaps the trajectories). So here args subset
//     accepts a made call that adds arguments, and args superset one
//     that leaves some out.
//   - unordered: both checks (unordered.py _scorer), each direction with
//     its own pairing: under args subset or superset a made call passes
//     only when its arguments and its expected call's are within each
//     other, that is equal.
//
// Deliberate differences, each for a reason:
//
//   - Pairing is a maximum bipartite matching (Kuhn's augmenting paths),
//     where _is_trajectory_superset and strict.py take, for each call,
//     the first unused call that matches. The two agree whenever the
//     arguments compare exact or ignore (a match is then an equivalence,
//     and greedy pairing is maximal); under subset or superset arguments
//     greedy pairing can fail where a full pairing exists, and then
//     openevals' verdict depends on the order the agent happened to
//     make its calls in. We pass those: order is what these modes say
//     does not matter.
//   - The expected trajectory is written as calls (Calls) or as the
//     calls of each AI message (Steps), not as whole messages: strict
//     compares the tool calls only, flat and in order (openevals
//     compares every message's role, the message count included, and
//     the calls of one message in any order); GroupParallel gives
//     openevals' per-message comparison for the AI messages with tool
//     calls. Message text, roles and the final answer are the final and
//     graders expectations' job.
//   - Custom matchers per tool (a callable, or a list of key paths,
//     in tool_args_match_overrides) are not offered: ToolArgs takes a
//     mode per tool; a Go grader ("go: name") or an args grader
//     compares arguments any other way.
//   - Values compare as JSON values (engine.ValueEqual): true never
//     equals 1, which Python's == lets through.
package grade

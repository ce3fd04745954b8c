// Package conformance runs LangGraph conformance vectors through the
// engine's public API and compares everything they recorded.
//
// A vector (see ../shared/conformance/README.md) is a deterministic
// scenario that was run through the real Python LangGraph/LangChain: the
// agent's configuration, scripted tools and models, the steps (invoke,
// update_state, get_state_history) and, for each step, what LangGraph
// produced: the output or error, the stream's update chunks and the
// superstep group of each, the inputs of every model call, the thread's
// state and history, the bound tool schemas and the graph's shape.
//
// Comparison rules:
//   - "<uuid>" and "<interrupt-id>" match any non-empty string (also inside
//     a longer string); {"$match": re} matches a string against an RE2
//     regexp.
//   - Update chunks of one superstep group arrive in completion order and
//     are compared as a multiset; groups compare in order.
//   - Everything else compares exactly; object keys may come in any order.
//
// Vector-format details the runner fills in: messages of update_state
// values without a "type" are AI messages; a response_format with
// "schema_as": "pydantic" validates and coerces the structured response.
//
// Extensions used by vectors written from LangGraph's source (their
// "about" names the source lines):
//   - config "store": "invoke" gives the in-memory store to every invoke
//     (engine.Config.Store, LangGraph's runtime store) instead of
//     compiling it into the graph.
//   - config "provider_tools" lists tools given as plain dicts
//     (create_react_agent's llm_builtin_tools, create_agent's
//     built_in_tools): bound after the tools, never run; model_calls name
//     them as engine.ProviderToolSchema does.
//   - a step with "stream_debug": true records its stream_mode="debug"
//     events as expected[i].debug, in order ({step, timestamp, type,
//     payload}, pregel/debug.py's payloads).
package conformance

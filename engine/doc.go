// Package engine is agenteval's reference runtime: a deterministic Go
// reimplementation of LangGraph's graph executor and prebuilt ReAct agent
// (langgraph 1.0.1, langgraph-prebuilt 1.0.1, langchain-core 1.0.1), usable
// as a library and as the oracle the rest of agenteval tests against.
//
// # What it provides
//
//   - Messages as plain data that map 1:1 onto LangChain message dicts
//     (Message, ToolCall, Content), the add_messages reducer (append,
//     replace by ID, RemoveMessage, remove-all), and JSON values that keep
//     key order and number literals (Object, json.Number) so LangGraph's
//     texts — json.dumps layouts and Python reprs — come out identical.
//   - StateGraph and Graph: a Pregel superstep executor with LangGraph's
//     channels (last value, reducer, ephemeral branch channels, the Send
//     topic, join barriers), integer channel versions, versions_seen,
//     writes applied in task-path order, recursion_limit (default 25) and
//     remaining_steps = recursion_limit - step, GraphRecursionError with
//     LangGraph's text, interrupt_before/after, Interrupt inside nodes,
//     Command{Resume, Update, Goto}, checkpoints per superstep (sources
//     input, loop, update), GetState, GetStateHistory, UpdateState with
//     forks, streaming of values, updates and custom output as Go
//     iterators, and node retry policies (RetryPolicy, WithRetryPolicy,
//     CompileOptions.RetryPolicy) as run_with_retry applies them.
//   - Subgraphs: AddSubgraph uses a compiled graph (an agent, whose Name
//     names its AI messages) as a node. It runs in the checkpoint
//     namespace "node:<task id>" below its parent's, with the parent's
//     checkpointer, thread, context and store; interrupt() inside it
//     pauses the parent and a resume continues it from its checkpoint;
//     Command{Graph: CommandParent} inside it is the node's output;
//     Config.Subgraphs streams its chunks with their Namespace and makes
//     GetState fill TaskInfo.State; Config.CheckpointNS (a task's
//     namespace) makes GetState and GetStateHistory read the subgraph's
//     own checkpoints, as a config's checkpoint_ns does.
//   - The "messages" stream mode (StreamMessages): chat model output as
//     MessageChunk pairs of message and LangGraph's task metadata. Nodes
//     call models through Generate, which streams a StreamingChatModel's
//     chunks as they come and any other model's answer whole; messages a
//     node writes that no model streamed (tool messages) follow when the
//     node ends, except those it was given (a subgraph node writes back
//     its whole conversation); nothing is streamed twice.
//   - The store of a run: the graph's (CompileOptions.Store) or one given
//     at invocation (Config.Store, LangGraph's runtime store), which a
//     subgraph inherits from its parent's run.
//   - Debugging output: the "checkpoints", "tasks" and "debug" stream
//     modes (StreamCheckpoints, StreamTasks, StreamDebug) with
//     pregel/debug.py's payloads — a checkpoint event when the next
//     superstep is planned (only with a checkpointer), a task event per
//     task that starts (hidden nodes left out), a task_result per task
//     that ends (a lone task that fails raises before its event is read,
//     as in LangGraph), and in debug mode each wrapped as {step,
//     timestamp, type, payload} — and the debug flag
//     (CompileOptions.Debug, Config.Debug, the agents' Debug), which
//     prints every update and values chunk as Pregel.stream's print_mode
//     does: "[updates] " or "[values] " in bold, then Python's repr of
//     the chunk, with langchain's message reprs.
//   - ToolNode: the calls of one AI message run concurrently, their tool
//     messages come back in call order; arguments are validated against
//     the tool's JSON Schema the way LangChain's pydantic models do;
//     handle_tool_errors, unknown tools, return_direct, Command results,
//     injected state/store/tool_call_id; the three input forms. Its tags
//     (and ValidationNode's) are kept and change nothing in a run, as in
//     langgraph-prebuilt, whose nodes never hand them to callbacks.
//   - Tools given as plain dicts (ProviderTools, ProviderToolSchema): a
//     provider's built-in tool or a function schema in a provider's
//     format, bound to the model after the other tools and run by no
//     ToolNode, as create_react_agent's llm_builtin_tools and
//     create_agent's built_in_tools are. A call to one reaches the tools
//     node as an unknown tool; an agent whose tools are all dicts has no
//     tools node, so such a call ends the run.
//   - CreateReactAgent with every option of create_react_agent: static or
//     dynamic model, tools or a ToolNode, prompt, response_format,
//     pre/post model hooks, extra state keys, checkpointer, store,
//     interrupts, version v1/v2 and name.
//   - CreateAgent, langchain v1's create_agent (langchain 1.1.3 on
//     langgraph 1.0.4): "model" and "tools" nodes, middleware hook nodes
//     named "<Middleware>.<hook>", jump_to, wrap_model_call and
//     wrap_tool_call chains, and response_format as ToolStrategy or
//     ProviderStrategy. The built-in middleware live in engine/middleware.
//
// The two agents follow two LangGraph releases where those differ: a
// create_agent graph defaults to recursion_limit 10,000, links its error
// texts to langgraph 1.0.4's pages, and its ToolNode turns only invalid
// arguments into tool messages (prebuilt 1.0.5's ToolInvocationError text)
// while other tool errors fail the run.
//
// # Semantics
//
// A run starts from the thread's newest checkpoint (or Config.CheckpointID).
// New input writes the __start__ channel and saves an "input" checkpoint at
// step -1 for a new thread (metadata step = previous step + 1 otherwise);
// nil input or a Command resumes. Each superstep prepares one task per
// pending Send and one per node whose trigger channel changed since it last
// ran, runs them concurrently, applies their writes sorted by task path
// (pull tasks by name, then push tasks by index), and saves a "loop"
// checkpoint. The run stops when no task is left, when step exceeds
// start + recursion_limit + 1 (GraphRecursionError), or at an interrupt.
// Nodes see remaining_steps = stop - step; a v2 tool call carries the state
// of the agent step that made it.
//
// A run's output (Invoke) holds the keys of the state schema; streams,
// their update chunks and GetState also show the keys that only a node's
// input declared (WithInput), after them: LangGraph's output_channels
// against stream_channels. create_react_agent's llm_input_messages is such
// a key: written by the pre-model hook, read by the model call, never
// added to "messages", kept in checkpoints until the hook writes it again.
//
// Update chunks are streamed as tasks finish. As in LangGraph, a superstep
// with a single task streams its chunk after the step's writes were applied
// (so new messages show their IDs), while a superstep with several tasks
// streams each chunk as it finishes, before IDs are assigned (null IDs).
// Chunks of one superstep therefore come in completion order; the state is
// always in task order.
//
// The add_messages reducer's semantics are addMessages in reducer.go,
// written as langgraph/graph/message.py writes it; the messages channel
// that graphs use is a faster route that a property proves equal to it.
// internals.md walks a superstep through the executor against LangGraph's
// PregelLoop and lists every such fast path: what it skips, when it
// applies, the plain route it must equal and the property that proves it.
//
// A messages key (one reduced by add_messages) holds a MessageList: an
// immutable list that shares its messages with the lists it was made
// from. It is what a node reads in its State, what a Result, a
// StateSnapshot, a stream chunk and a checkpoint hold, and what
// ModelRequest.Messages gives a model. State.Messages (and Slice) return
// it as one []Message, built once per list; State.List, All, Backward,
// At, Len and Last read it without building one. The slices of lists
// that grow one from another in a run share one array that doubles, so
// a model node or a provider that asks for the thread as one slice every
// step (create_agent's, the OpenAI and Anthropic providers) copies each
// message about once per run, not once per step. A node may write a
// MessageList, a []Message or any message-like value.
//
// Values are shared, not copied: a run appends to its thread's list by
// making new lists over it, never by changing a list handed out, and a
// Checkpointer may keep the values it is given and hand them out again
// (Memory does, SQLite keeps recently decoded message lists as
// MessageLists). Treat every value as read only: what a message points to
// (argument objects, content blocks) is shared too. A run hands every
// checkpoint's maps to its saver and changes them no more, so Memory
// keeps those too. The message list a built-in node returns (the model
// node's answer, the ToolNode's tool messages, also through
// ToolNode.Node) gets its IDs in place, as LangGraph's add_messages sets
// them on the message objects a node returned; a list any other node
// returns is copied first, and in a stream of updates the chunk shows a
// list as its node wrote it. With a saver, the one-message write of the
// prebuilt agent's model and tools nodes (a task's PendingWrites) holds
// the very message of the thread's list, not a copy: the node puts it
// where the list appends it.
//
// What a turn costs does not depend on its thread's length when the
// thread comes as a MessageList: from a checkpoint (the newest, or an
// older one: a fork), or as the input of a run without a checkpointer
// (a caller that keeps the previous Result's list and appends its
// question to it). A list's nodes keep their own ID index, the hash state
// of the run's ID seed and the prebuilt agent's history check, so a run
// reads only the messages its input added. A thread given as a []Message
// is read whole (its messages are copied into a new list, hashed and
// indexed), and so is a list a prompt is put in front of
// (ReactAgentConfig.Prompt): a list is a chain from its end. Keep long
// threads in a checkpointer, or hand them back as MessageLists.
//
// # Deliberate differences from LangGraph
//
//   - IDs are deterministic. LangGraph uses random UUIDs for messages and
//     time-based ones for checkpoints; here a message's ID is a UUID
//     (version 8) hashed from the checkpoint, the task and a counter,
//     checkpoint IDs are assigned by the Checkpointer in put order, task IDs
//     hash LangGraph's own parts with SHA-256 instead of xxHash, and an
//     interrupt's ID is the first 32 hex digits of the SHA-256 of its task
//     namespace (LangGraph: xxh3-128). A run without a checkpointer, whose
//     IDs nothing stores, takes no checkpoint IDs and derives its task and
//     message IDs from a key of the run's seed (which hashes the thread and
//     the input) and the step, the task's position and the counter, mixed
//     rather than hashed (fastID in ids.go). Same input, same IDs.
//   - When several tasks of a superstep fail, every task is allowed to
//     finish and the error of the first failing task in task-path order is
//     returned (LangGraph raises whichever finished first). Its finished
//     siblings' writes are saved as pending writes either way.
//   - Version v1 with a post-model hook is refused by CreateReactAgent:
//     LangGraph builds it and then fails with KeyError('tools') once the
//     model calls a tool.
//   - A v2 tool call is sent as ToolCallWithContext (call plus state) and
//     state, store and tool_call_id are injected when the tool runs, as
//     later LangGraph releases do (1.0.1 injected while routing and could
//     not serialize the store). So a v2 agent given its store only at
//     invocation (Config.Store) injects that store; 1.0.1's router
//     injected the compile-time store and raised the missing-store
//     ValueError there.
//   - UpdateState on a checkpoint with finished tasks' pending writes does
//     not apply those writes (later LangGraph releases; 1.0.1 applied them
//     and lost the pending tools task of a fork).
//   - A dynamic model (ModelSelector) gets the tools in its ModelRequest;
//     LangGraph expects the callable to return a model with tools bound.
//   - create_react_agent's structured response uses tool calling with
//     tool_choice "any" (BaseChatModel.with_structured_output), unless the
//     model implements StructuredOutputModel with "json_schema"
//     (ChatOpenAI's default method; llm.OpenAI does): then the schema goes
//     as response_format and the answer's text is read as JSON. A pydantic
//     schema (Validate) is sent like a dict with "strict": true, where
//     openai-python would send the class's schema whole; other providers'
//     own with_structured_output defaults (ChatAnthropic's named
//     tool_choice) are not followed.
//   - A response format without a title is named "response_format_" and
//     four hex digits of the SHA-256 of its JSON (LangChain: of a random
//     UUID). One given as an OpenAI function ({"name", "description",
//     "parameters"}) is taken as LangChain takes it: create_react_agent
//     and ProviderStrategy use the function, ToolStrategy binds the dict
//     itself as the arguments of a tool so named.
//   - Go errors are mapped to Python exception kinds: an *Error carries its
//     kind, a *ValidationError is "ValidationError", context cancellation is
//     "CancelledError", anything else is "Exception" (its repr is
//     Exception('<text>')). A panicking tool or node becomes an error.
//   - Argument validation emulates pydantic's lax mode for JSON Schema
//     types (numeric strings to numbers, 2.0 to 2, extra keys dropped, keys
//     in schema order); its error texts follow pydantic's layout.
//   - Checkpoints are written synchronously after every superstep
//     (LangGraph's "sync" durability); there is no async API.
//   - A subgraph task continues from its own checkpoint when one exists in
//     its namespace (the namespace holds the task ID, so only a re-run of
//     the same task finds one); LangGraph decides from the parent's
//     CONFIG_KEY_RESUMING flag, which agrees except after a fork that
//     replays the parent's step with new input. A subgraph compiled with
//     a checkpointer keeps it (checkpointer=True's own history and
//     checkpointer=False are not offered). Task IDs hash the namespace as
//     LangGraph's do.
//   - A retry policy waits on the graph's Clock, and its jitter
//     (random.uniform(0, 1) seconds in LangGraph) is drawn from SHA-256 of
//     the task ID and the attempt, so a run waits the same every time.
//     default_retry_on's HTTP cases (httpx/requests 5xx) have no Go
//     counterpart: a provider's error is "any other exception" and is
//     retried. Retrying does not log.
//   - In "messages" mode a model answer without an ID gets the ID the
//     task would give it when written, before it is streamed (LangChain's
//     models name theirs "run-<uuid>"), so message IDs of a run streamed
//     in that mode may differ from the same run's without it. Metadata
//     carries no "tags" and no ls_temperature or ls_max_tokens.
//   - Debug events are JSON values (*Object): a task_result's error is
//     the exception's repr ("ValueError('boom')") where LangGraph hands
//     the exception object; checkpoint metadata holds source, step and
//     parents (not the run's config metadata a checkpointer may add);
//     a config's keys follow the order PregelLoop builds them for the
//     root graph, and subgraph configs carry only checkpoint_ns,
//     thread_id, checkpoint_id and checkpoint_map; timestamps come from
//     the graph's Clock. A v2 tools task's input is the
//     ToolCallWithContext dict of later releases (see above), not 1.0.1's
//     [tool_call] list.
//   - Channel versions are integers; LangGraph's in-memory saver uses
//     sortable strings with the same ordering.
//   - create_agent picks ProviderStrategy for an auto response format only
//     for models that implement ModelInfo with a name langchain lists as
//     supporting structured output (gpt-4o, gpt-4.1, ...); LangChain also
//     consults provider model profiles, which the engine does not have.
//     Python's json.loads error texts in StructuredOutputValidationError
//     are approximated ("Expecting value" / "Extra data" with position).
package engine

package middleware

import (
	"context"
	"fmt"

	"github.com/agenteval/agenteval/engine"
)

// TodosKey is the state key TodoList keeps the todo list under.
const TodosKey = "todos"

// WriteTodosToolName is the name of the tool TodoList adds.
const WriteTodosToolName = "write_todos"

// WriteTodosParallelError answers every write_todos call of an AI message
// that made more than one (TodoListOptions.RejectParallelWrites).
const WriteTodosParallelError = "Error: The `write_todos` tool should never be called multiple times in parallel. Please call it only once per model invocation to update the todo list."

// WriteTodosSystemPrompt is langchain's WRITE_TODOS_SYSTEM_PROMPT, the
// default text TodoList adds to the system message.
const WriteTodosSystemPrompt = "## `write_todos`\n" +
	"\n" +
	"You have access to the `write_todos` tool to help you manage and plan complex objectives.\n" +
	"Use this tool for complex objectives to ensure that you are tracking each necessary step and giving the user visibility into your progress.\n" +
	"This tool is very helpful for planning complex objectives, and for breaking down these larger complex objectives into smaller steps.\n" +
	"\n" +
	"It is critical that you mark todos as completed as soon as you are done with a step. Do not batch up multiple steps before marking them as completed.\n" +
	"For simple objectives that only require a few steps, it is better to just complete the objective directly and NOT use this tool.\n" +
	"Writing todos takes time and tokens, use it when it is helpful for managing complex many-step problems! But not for simple few-step requests.\n" +
	"\n" +
	"## Important To-Do List Usage Notes to Remember\n" +
	"- The `write_todos` tool should never be called multiple times in parallel.\n" +
	"- Don't be afraid to revise the To-Do list as you go. New information may reveal new tasks that need to be done, or old tasks that are irrelevant."

// WriteTodosToolDescription is langchain's WRITE_TODOS_TOOL_DESCRIPTION,
// the default description of the write_todos tool.
const WriteTodosToolDescription = "Use this tool to create and manage a structured task list for your current work session. This helps you track progress, organize complex tasks, and demonstrate thoroughness to the user.\n" +
	"\n" +
	"Only use this tool if you think it will be helpful in staying organized. If the user's request is trivial and takes less than 3 steps, it is better to NOT use this tool and just do the task directly.\n" +
	"\n" +
	"## When to Use This Tool\n" +
	"Use this tool in these scenarios:\n" +
	"\n" +
	"1. Complex multi-step tasks - When a task requires 3 or more distinct steps or actions\n" +
	"2. Non-trivial and complex tasks - Tasks that require careful planning or multiple operations\n" +
	"3. User explicitly requests todo list - When the user directly asks you to use the todo list\n" +
	"4. User provides multiple tasks - When users provide a list of things to be done (numbered or comma-separated)\n" +
	"5. The plan may need future revisions or updates based on results from the first few steps\n" +
	"\n" +
	"## How to Use This Tool\n" +
	"1. When you start working on a task - Mark it as in_progress BEFORE beginning work.\n" +
	"2. After completing a task - Mark it as completed and add any new follow-up tasks discovered during implementation.\n" +
	"3. You can also update future tasks, such as deleting them if they are no longer necessary, or adding new tasks that are necessary. Don't change previously completed tasks.\n" +
	"4. You can make several updates to the todo list at once. For example, when you complete a task, you can mark the next task you need to start as in_progress.\n" +
	"\n" +
	"## When NOT to Use This Tool\n" +
	"It is important to skip using this tool when:\n" +
	"1. There is only a single, straightforward task\n" +
	"2. The task is trivial and tracking it provides no benefit\n" +
	"3. The task can be completed in less than 3 trivial steps\n" +
	"4. The task is purely conversational or informational\n" +
	"\n" +
	"## Task States and Management\n" +
	"\n" +
	"1. **Task States**: Use these states to track progress:\n" +
	"   - pending: Task not yet started\n" +
	"   - in_progress: Currently working on (you can have multiple tasks in_progress at a time if they are not related to each other and can be run in parallel)\n" +
	"   - completed: Task finished successfully\n" +
	"\n" +
	"2. **Task Management**:\n" +
	"   - Update task status in real-time as you work\n" +
	"   - Mark tasks complete IMMEDIATELY after finishing (don't batch completions)\n" +
	"   - Complete current tasks before starting new ones\n" +
	"   - Remove tasks that are no longer relevant from the list entirely\n" +
	"   - IMPORTANT: When you write this todo list, you should mark your first task (or tasks) as in_progress immediately!.\n" +
	"   - IMPORTANT: Unless all tasks are completed, you should always have at least one task in_progress to show the user that you are working on something.\n" +
	"\n" +
	"3. **Task Completion Requirements**:\n" +
	"   - ONLY mark a task as completed when you have FULLY accomplished it\n" +
	"   - If you encounter errors, blockers, or cannot finish, keep the task as in_progress\n" +
	"   - When blocked, create a new task describing what needs to be resolved\n" +
	"   - Never mark a task as completed if:\n" +
	"     - There are unresolved issues or errors\n" +
	"     - Work is partial or incomplete\n" +
	"     - You encountered blockers that prevent completion\n" +
	"     - You couldn't find necessary resources or dependencies\n" +
	"     - Quality standards haven't been met\n" +
	"\n" +
	"4. **Task Breakdown**:\n" +
	"   - Create specific, actionable items\n" +
	"   - Break complex tasks into smaller, manageable steps\n" +
	"   - Use clear, descriptive task names\n" +
	"\n" +
	"Being proactive with task management demonstrates attentiveness and ensures you complete all requirements successfully\n" +
	"Remember: If you only need to make a few tool calls to complete a task, and it is clear what you need to do, it is better to just do the task directly and NOT call this tool at all."

// TodoListOptions configures TodoList. The zero value is langchain
// 1.1.3's TodoListMiddleware() with the default texts.
type TodoListOptions struct {
	// SystemPrompt is appended to the system message of every model call;
	// "" means WriteTodosSystemPrompt.
	SystemPrompt string `json:"system_prompt,omitempty"`
	// ToolDescription describes write_todos to the model; "" means
	// WriteTodosToolDescription.
	ToolDescription string `json:"tool_description,omitempty"`
	// RejectParallelWrites adds the after_model hook of later langchain
	// releases (1.2): an AI message with several write_todos calls gets
	// the error tool message WriteTodosParallelError for each of them,
	// and none runs. Without it (langchain 1.1.3) the agent has no
	// after_model node and such a message fails the run when both calls
	// write the todos key in one step (InvalidUpdateError).
	RejectParallelWrites bool `json:"reject_parallel_writes,omitempty"`
}

// Validate reports what is wrong with the options; every value is valid.
func (o TodoListOptions) Validate() error { return nil }

// TodoList mirrors langchain's TodoListMiddleware
// (langchain/agents/middleware/todo.py): it gives the agent a write_todos
// tool that replaces the "todos" state key with the list it is given, and
// tells the model about it in the system message.
//
// Options (TodoListOptions): system_prompt, tool_description, and
// RejectParallelWrites for the later releases' guard against parallel
// write_todos calls.
//
// write_todos takes {"todos": [{"content", "status"}]} (status pending,
// in_progress or completed) and answers "Updated todo list to [{'content':
// 'a', 'status': 'pending'}]", the Python repr of the list. wrap_model_call
// turns the system message into content blocks: the existing message's
// blocks plus {"type": "text", "text": "\n\n" + prompt}, or a single block
// with the prompt when there is no system message.
type TodoList struct {
	opts TodoListOptions
	tool engine.Tool
}

// todoListGuarded is a TodoList with the after_model hook that rejects
// parallel write_todos calls. A separate type, because the agent gives a
// middleware a hook node exactly when it implements the hook.
type todoListGuarded struct{ *TodoList }

// NewTodoList returns the TodoList middleware: a *TodoList, or with
// RejectParallelWrites a middleware that also has the after_model hook.
func NewTodoList(opts TodoListOptions) (engine.Middleware, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("TodoListMiddleware: %w", err)
	}
	if opts.SystemPrompt == "" {
		opts.SystemPrompt = WriteTodosSystemPrompt
	}
	if opts.ToolDescription == "" {
		opts.ToolDescription = WriteTodosToolDescription
	}
	t := &TodoList{opts: opts}
	t.tool = engine.NewTool(engine.ToolDef{
		Name:        WriteTodosToolName,
		Description: opts.ToolDescription,
		Parameters:  writeTodosSchema(),
	}, writeTodos)
	if opts.RejectParallelWrites {
		return todoListGuarded{t}, nil
	}
	return t, nil
}

// writeTodosSchema is the argument schema langchain derives from
// write_todos(todos: list[Todo]).
func writeTodosSchema() *engine.Object {
	todo := engine.NewObject(
		"description", "A single todo item with content and status.",
		"properties", engine.NewObject(
			"content", engine.NewObject("type", "string"),
			"status", engine.NewObject("enum", []any{"pending", "in_progress", "completed"}, "type", "string"),
		),
		"required", []any{"content", "status"},
		"type", "object",
	)
	return engine.NewObject(
		"properties", engine.NewObject("todos", engine.NewObject("items", todo, "type", "array")),
		"required", []any{"todos"},
		"type", "object",
	)
}

// writeTodos is the write_todos tool: a Command that sets the todos and
// answers the call.
func writeTodos(_ context.Context, inv engine.ToolInvocation) (any, error) {
	todos, _ := inv.Args().Get("todos")
	if todos == nil {
		todos = []any{}
	}
	msg := engine.Message{
		Type:       engine.TypeTool,
		Content:    engine.Text("Updated todo list to " + engine.PyRepr(todos)),
		ToolCallID: inv.Call.ID,
		Status:     engine.StatusSuccess,
	}
	return &engine.Command{Update: engine.State{TodosKey: todos, "messages": []engine.Message{msg}}}, nil
}

// Name is the middleware's node prefix.
func (t *TodoList) Name() string { return "TodoListMiddleware" }

// Options returns the options the middleware was built with, defaults
// filled in.
func (t *TodoList) Options() TodoListOptions { return t.opts }

// Tools adds write_todos.
func (t *TodoList) Tools() []engine.Tool { return []engine.Tool{t.tool} }

// StateFields adds the todos key, which a run's input cannot set.
func (t *TodoList) StateFields() []engine.Field {
	return []engine.Field{{Name: TodosKey, OmitFromInput: true}}
}

// WrapModelCall appends the todo prompt to the system message.
func (t *TodoList) WrapModelCall(ctx context.Context, req engine.AgentModelRequest, next engine.ModelCallHandler) (*engine.AgentModelResponse, error) {
	var blocks []any
	if req.SystemMessage != nil {
		blocks = append(todoContentBlocks(req.SystemMessage.Content), engine.NewObject("type", "text", "text", "\n\n"+t.opts.SystemPrompt))
	} else {
		blocks = []any{engine.NewObject("type", "text", "text", t.opts.SystemPrompt)}
	}
	sys := engine.Message{Type: engine.TypeSystem, Content: engine.Blocks(blocks...)}
	req.SystemMessage = &sys
	return next(ctx, req)
}

// todoContentBlocks is a message's content as a list of blocks
// (langchain_core's content_blocks for text): a string becomes one text
// block, strings inside a list become text blocks, blocks stay as they are.
func todoContentBlocks(c engine.Content) []any {
	if !c.IsList() {
		return []any{engine.NewObject("type", "text", "text", c.String())}
	}
	out := make([]any, 0, len(c.Blocks()))
	for _, b := range c.Blocks() {
		if s, ok := b.(string); ok {
			out = append(out, engine.NewObject("type", "text", "text", s))
			continue
		}
		out = append(out, b)
	}
	return out
}

// AfterModel answers every write_todos call of the new AI message with an
// error when it made more than one (TodoListMiddleware.after_model in
// later langchain releases).
func (g todoListGuarded) AfterModel(_ context.Context, state engine.State) (any, error) {
	msgs, err := engine.MessagesFromValue(state["messages"])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.Name(), err)
	}
	var last *engine.Message
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == engine.TypeAI {
			last = &msgs[i]
			break
		}
	}
	if last == nil {
		return nil, nil
	}
	var calls []engine.ToolCall
	for _, tc := range last.ToolCalls {
		if tc.Name == WriteTodosToolName {
			calls = append(calls, tc)
		}
	}
	if len(calls) < 2 {
		return nil, nil
	}
	out := make([]engine.Message, len(calls))
	for i, tc := range calls {
		out[i] = engine.Message{Type: engine.TypeTool, Content: engine.Text(WriteTodosParallelError), ToolCallID: tc.ID, Status: engine.StatusError}
	}
	return engine.State{"messages": out}, nil
}

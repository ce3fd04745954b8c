// An agent built on Google's Agent Development Kit (@google/adk): an
// LlmAgent with one FunctionTool, run by an InMemoryRunner on one session,
// written as its users write it, with nothing of agenteval in it but the
// turn protocol: one JSON line per turn on stdin ({"user": "..."}), one
// JSON line per answer on stdout ({"output": "..."}).
//
// ADK's Gemini model calls the Gemini API through @google/genai, which
// reads its base URL from GOOGLE_GEMINI_BASE_URL and ADK its key from
// GEMINI_API_KEY (or GOOGLE_API_KEY), so
//
//   GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:8089 GEMINI_API_KEY=dummy node agent.mjs
//
// points it at `agenteval serve`. AGENT_STREAM=1 streams the model's
// answers (streamGenerateContent with alt=sse).
import { createInterface } from "node:readline";
import { FunctionTool, InMemoryRunner, LlmAgent, StreamingMode } from "@google/adk";
import { z } from "zod";

const WEATHER = { Paris: "sunny, 21°C", London: "rainy, 14°C", Tokyo: "cloudy, 18°C" };

const getWeather = new FunctionTool({
  name: "get_weather",
  description: "Get the current weather in a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => {
    if (!(city in WEATHER)) return { error: `unknown city: ${city}` };
    return { result: WEATHER[city] };
  },
});

const agent = new LlmAgent({
  name: "weather_agent",
  model: process.env.AGENT_MODEL ?? "gemini-2.5-flash",
  description: "Answers questions about the weather.",
  instruction: "You are a helpful weather assistant.",
  tools: [getWeather],
});

const runner = new InMemoryRunner({ agent, appName: "weather" });
const session = await runner.sessionService.createSession({ appName: "weather", userId: "user" });
const streamingMode = process.env.AGENT_STREAM === "1" ? StreamingMode.SSE : StreamingMode.NONE;
const say = (v) => process.stdout.write(JSON.stringify(v) + "\n");

// runTurn runs one user turn and returns the agent's final text. Streamed,
// the partial texts go to stderr as they come.
async function runTurn(text) {
  let final = "";
  for await (const event of runner.runAsync({
    userId: "user",
    sessionId: session.id,
    newMessage: { role: "user", parts: [{ text }] },
    runConfig: { streamingMode },
  })) {
    if (event.errorCode) throw new Error(`${event.errorCode}: ${event.errorMessage}`);
    const texts = (event.content?.parts ?? []).filter((p) => p.text !== undefined).map((p) => p.text);
    if (event.partial) process.stderr.write(texts.join(""));
    else if (texts.length > 0) final = texts.join("");
  }
  return final;
}

for await (const line of createInterface({ input: process.stdin })) {
  const turn = JSON.parse(line);
  try {
    say({ output: await runTurn(turn.user) });
  } catch (e) {
    say({ error: String(e?.message ?? e) });
    process.exit(1);
  }
}

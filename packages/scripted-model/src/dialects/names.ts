/**
 * The names every layer shares (the neutral conversation, the decision engine, the
 * dialects), in a module that imports nothing, so no layer has to import a higher one.
 *
 * `ProviderDialect`: `responses` (OpenAI Responses, Codex), `chat-completions` (OpenAI Chat
 * Completions, OpenCode), `anthropic-messages` (Claude Code), `gemini` (Gemini CLI).
 */
export type ProviderDialect = "responses" | "chat-completions" | "anthropic-messages" | "gemini";

/**
 * Why a request is a side request (not the agent's main turn), answered with something
 * plausible that no rule has to mention:
 * - `title`: a conversation title (OpenCode's first request).
 * - `routing`: a model router or classifier call in JSON mode (Gemini CLI).
 * - `summary`: a tool-less summary or housekeeping request (Gemini CLI's session summary).
 * - `token_count`: a token count (`/v1/messages/count_tokens`, `:countTokens`).
 * - `probe`: a connectivity probe (`HEAD /`).
 * - `models`: a model list (`GET /v1/models`, `GET /v1beta/models`).
 */
export type SidePurpose = "title" | "routing" | "summary" | "token_count" | "probe" | "models";
